// Text from outside (a model's name, a job's error, a metric's name) put into the Markdown of a step
// summary as text, never as markup: GitHub renders Markdown and some HTML there, so a name such as
// `<img src=…>` or `[click](…)` must show as it is written. Terminal controls are made visible later,
// when the summary is written (github.ts).

/** One line of plain text, safe in a paragraph or a table cell. */
export function markdownText(text: string): string {
  return (
    text
      .replace(/\r\n|\r|\n/g, ' ')
      .replace(/&/g, '&amp;')
      .replace(/</g, '&lt;')
      .replace(/>/g, '&gt;')
      // What makes emphasis, code, links, tables and strike-through anywhere in a line,
      .replace(/[\\`*_[\]|~]/g, (ch) => `\\${ch}`)
      // and a heading, a list item or a rule at its start.
      .replace(/^(\s*)([#+=-])/, '$1\\$2')
      .replace(/^(\s*\d+)([.)])/, '$1\\$2')
  );
}

/** A fenced code block (a command to copy, say): the fence longer than any run of backticks inside. */
export function markdownCodeBlock(text: string, language = ''): string {
  const longest = Math.max(2, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = '`'.repeat(longest + 1);
  return `${fence}${language}\n${text.replace(/\n?$/, '\n')}${fence}\n`;
}

/** A table: the header and the cells are Markdown already (markdownText for outside text). */
export function markdownTable(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const line = (cells: readonly string[]) => `| ${cells.join(' | ')} |`;
  return [line(header), line(header.map(() => '---')), ...rows.map(line), ''].join('\n');
}
