// `aip checkpoints delete`: its argument, flags, help and examples; the code that runs is
// delete.run.ts.

import { Argument } from '@commander-js/extra-typings';
import type { Context } from '../../context.js';
import { examples } from '../examples.js';
import type { OptionsOf, Parent } from '../types.js';
import { valueKind } from '../value-kinds.js';
import { MODEL_ARG } from './arguments.js';

function define(checkpoints: Parent) {
  const del = checkpoints
    .command('delete')
    .description('delete the checkpoints of some steps (exit 3 when none of them existed)')
    .addArgument(valueKind('model', new Argument('<model>', MODEL_ARG)))
    .requiredOption('--steps <list>', 'steps to delete: 3,5,7 or ranges such as 10-20');
  return examples(del, [
    'aip checkpoints delete agent-001 --steps 3,5,7',
    'aip checkpoints delete agent-001 --steps 1-40 --yes',
  ]);
}

export type DeleteOptions = OptionsOf<typeof define>;

export function registerDelete(checkpoints: Parent, ctx: Context): void {
  define(checkpoints).action(async (model, options) => {
    const { runDelete } = await import('./delete.run.js');
    await runDelete(ctx, model, options);
  });
}
