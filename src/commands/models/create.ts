// `aip models create`: its flags, help and examples; the code that runs is create.run.ts.

import type { Context } from '../../context.js';
import { examples } from '../examples.js';
import type { OptionsOf, Parent } from '../types.js';

function define(models: Parent) {
  const create = models
    .command('create')
    .description(
      'create a trainable model in the project (--project or the project setting), and remember it by name',
    )
    .requiredOption('--name <name>', 'model name, unique within the project')
    .requiredOption('--base-model <id>', 'base model to train from (see aip models base)')
    .option('--return-existing', 'if a model of that name exists, return it instead of failing');
  return examples(create, [
    'aip models create --name agent-001 --base-model OpenPipe/Qwen3-14B-Instruct',
    'aip --project my-team/mail models create --name agent-001 --base-model OpenPipe/Qwen3-14B-Instruct --return-existing -q',
  ]);
}

export type CreateOptions = OptionsOf<typeof define>;

export function registerCreate(models: Parent, ctx: Context): void {
  define(models).action(async (options) => {
    const { runCreate } = await import('./create.run.js');
    await runCreate(ctx, options);
  });
}
