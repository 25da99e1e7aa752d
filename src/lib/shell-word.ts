// A word of a command line as it can be pasted into a POSIX shell: as it is when it holds nothing the
// shell reads specially, else in single quotes. For the "run this" hints and the CI report's
// reproduction of a step.

export function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/**
 * The words of a command with one argument and its options, for a hint: the argument right after the
 * command, or, when it could be read as an option (`-V`), after `--` with the options before it.
 */
export function withArgument(
  command: readonly string[],
  argument: string,
  options: readonly string[],
): string[] {
  return argument.startsWith('-')
    ? [...command, ...options, '--', argument]
    : [...command, argument, ...options];
}
