// `aip checkpoints prune`: its argument, flags, help and examples; the code that runs is prune.run.ts.

import { Argument, InvalidArgumentError } from '@commander-js/extra-typings';
import type { Context } from '../../context.js';
import { examples } from '../examples.js';
import type { OptionsOf, Parent } from '../types.js';
import { valueKind } from '../value-kinds.js';
import { MODEL_ARG } from './arguments.js';

function parseCount(value: string): number {
  if (!/^\d+$/.test(value)) throw new InvalidArgumentError('expected a whole number, 0 or more');
  return Number(value);
}

function define(checkpoints: Parent) {
  const prune = checkpoints
    .command('prune')
    .description('keep the last N checkpoints (and the best by a metric), delete the rest')
    .addArgument(valueKind('model', new Argument('<model>', MODEL_ARG)))
    .option('--keep-last <n>', 'keep the N highest steps', parseCount)
    .option(
      '--keep-best <metric[:min]>',
      'also keep the best checkpoint by a metric (highest; :min for lowest)',
    )
    .option('--dry-run', 'show the plan and delete nothing');
  return examples(prune, [
    'aip checkpoints prune agent-001 --keep-last 3 --dry-run',
    'aip checkpoints prune agent-001 --keep-last 1 --keep-best reward --yes',
    'aip checkpoints prune agent-001 --keep-last 2 --keep-best loss:min',
  ]);
}

export type PruneOptions = OptionsOf<typeof define>;

export function registerPrune(checkpoints: Parent, ctx: Context): void {
  define(checkpoints).action(async (model, options) => {
    const { runPrune } = await import('./prune.run.js');
    await runPrune(ctx, model, options);
  });
}
