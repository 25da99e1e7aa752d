// `aip checkpoints list`: its argument, flags, help and examples; the code that runs is list.run.ts.

import { Argument, InvalidArgumentError } from '@commander-js/extra-typings';
import type { Context } from '../../context.js';
import { examples } from '../examples.js';
import { parseLimit } from '../parsers.js';
import type { OptionsOf, Parent } from '../types.js';
import { valueKind } from '../value-kinds.js';
import { MODEL_ARG } from './arguments.js';

function parseOrder(value: string): 'asc' | 'desc' {
  if (value !== 'asc' && value !== 'desc') throw new InvalidArgumentError('expected asc or desc');
  return value;
}

function define(checkpoints: Parent) {
  const list = checkpoints
    .command('list')
    .description(
      'list checkpoints (STEP, ID, metrics; on a terminal the best by reward marked), a page at a time or --all',
    )
    .addArgument(valueKind('model', new Argument('<model>', MODEL_ARG)))
    .option('--limit <n>', 'checkpoints per page, 1-100 (default 20)', parseLimit)
    .option('--after <id>', 'start after this checkpoint id (the cursor printed at the end of a page)')
    .option('--order <asc|desc>', 'by step: asc (default) or desc', parseOrder)
    .option('--all', 'every page (with --json: one array)')
    .option('--plot <metric>', 'draw a metric over the steps of all checkpoints');
  return examples(list, [
    'aip checkpoints list agent-001',
    'aip checkpoints list agent-001 --order desc --limit 1 -q     # the latest checkpoint id',
    'aip checkpoints list agent-001 --all --json | jq "map(.step)"',
    'aip checkpoints list agent-001 --plot reward',
  ]);
}

export type ListOptions = OptionsOf<typeof define>;

export function registerList(checkpoints: Parent, ctx: Context): void {
  define(checkpoints).action(async (model, options) => {
    const { runList } = await import('./list.run.js');
    await runList(ctx, model, options);
  });
}
