// A word of a command line as it can be pasted into a POSIX shell: as it is when it holds nothing the
// shell reads specially, else in single quotes. For the "run this" hints and the CI report's
// reproduction of a step.

export function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}
