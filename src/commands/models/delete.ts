// `aip models delete`: its argument, help and examples; the code that runs is delete.run.ts.

import { Argument } from '@commander-js/extra-typings';
import type { Context } from '../../context.js';
import { examples } from '../examples.js';
import type { Parent } from '../types.js';
import { valueKind } from '../value-kinds.js';

function define(models: Parent) {
  const del = models
    .command('delete')
    .description(
      'delete a model with all its checkpoints and its run (asks first on a terminal; --yes in scripts)',
    )
    .addArgument(
      valueKind(
        'model',
        new Argument('<model>', 'model id, or a name created from this machine (team/project/name or name)'),
      ),
    );
  return examples(del, ['aip models delete agent-001', 'aip models delete 3f0c…-uuid --yes']);
}

export function registerDelete(models: Parent, ctx: Context): void {
  define(models).action(async (model) => {
    const { runDelete } = await import('./delete.run.js');
    await runDelete(ctx, model);
  });
}
