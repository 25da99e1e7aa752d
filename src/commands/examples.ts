import type { CommandUnknownOpts } from '@commander-js/extra-typings';

/** Every command's help ends with examples: the quickest way to learn a command is to see it used. */
export function examples<C extends CommandUnknownOpts>(command: C, lines: string[]): C {
  command.addHelpText('after', `\nExamples:\n${lines.map((line) => `  $ ${line}`).join('\n')}\n`);
  return command;
}
