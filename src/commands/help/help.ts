// `aip help`: its argument, help and examples; the code that runs is help.run.ts.

import type { Context } from '../../context.js';
import { examples } from '../examples.js';
import type { Parent } from '../types.js';
import { wholeTree } from '../verbs.js';

function define(program: Parent) {
  const help = program
    .command('help')
    .description('show help for a command, or a topic: exit-codes, environment')
    .argument('[topic...]', 'a command (e.g. "auth login") or a topic');
  return examples(help, ['aip help exit-codes', 'aip help environment', 'aip help auth login']);
}

export function registerHelp(program: Parent, ctx: Context): void {
  define(program).action(async (topic) => {
    const { runHelp } = await import('./help.run.js');
    await runHelp(ctx, wholeTree(program), topic);
  });
}
