// `aip history prune`: its flags, help and examples; the code that runs is prune.run.ts.

import { Option } from '@commander-js/extra-typings';
import type { Context } from '../../context.js';
import { examples } from '../examples.js';
import type { OptionsOf, Parent } from '../types.js';
import { parseTime } from './arguments.js';

function define(history: Parent) {
  const prune = history
    .command('prune')
    .description('remove the commands that ended before a time, with their usage, ids and bodies')
    .addOption(
      new Option('--older-than <age>', 'an age (30d, 12h) or an ISO date: what ended before it goes')
        .argParser(parseTime)
        .makeOptionMandatory(),
    );
  return examples(prune, [
    'aip history prune --older-than 30d',
    'aip history prune --older-than 2026-01-01 --json',
  ]);
}

export type PruneOptions = OptionsOf<typeof define>;

export function registerPrune(history: Parent, ctx: Context): void {
  define(history).action(async (options) => {
    const { runPrune } = await import('./prune.run.js');
    await runPrune(ctx, options);
  });
}
