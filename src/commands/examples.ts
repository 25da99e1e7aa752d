import type { Command } from 'commander';

/** Every command's help ends with examples: the quickest way to learn a command is to see it used. */
export function examples(command: Command, lines: string[]): Command {
  return command.addHelpText('after', `\nExamples:\n${lines.map((line) => `  $ ${line}`).join('\n')}\n`);
}
