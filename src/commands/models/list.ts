// `aip models list`: its help and examples; the code that runs is list.run.ts.

import type { Context } from '../../context.js';
import { examples } from '../examples.js';
import type { Parent } from '../types.js';

function define(models: Parent) {
  const list = models
    .command('list')
    .description(
      'the Inference API model list (the openai SDK, with the OpenAI-Project header of the project)',
    );
  return examples(list, ['aip models list', 'aip models list --json | jq -r ".[].id"', 'aip models list -q']);
}

export function registerList(models: Parent, ctx: Context): void {
  define(models).action(async () => {
    const { runList } = await import('./list.run.js');
    await runList(ctx);
  });
}
