// `aip models list`: its help and examples; the code that runs is list.run.ts.

import type { Context } from '../../context.js';
import { examples } from '../examples.js';
import type { OptionsOf, Parent } from '../types.js';

function define(models: Parent) {
  const list = models
    .command('list')
    .description(
      'the Inference API model list (sent with the OpenAI-Project header of the project); with --remembered, the trainable models created from this machine',
    )
    .option(
      '--remembered',
      'the trainable models created from this machine against this base URL (the API cannot list them), newest first; nothing is sent',
    );
  return examples(list, [
    'aip models list',
    'aip models list --json | jq -r ".[].id"',
    'aip models list -q',
    'aip models list --remembered',
    'aip models list --remembered --jq ".[].name"',
  ]);
}

export type ListOptions = OptionsOf<typeof define>;

export function registerList(models: Parent, ctx: Context): void {
  define(models).action(async (options) => {
    const { runList, runListRemembered } = await import('./list.run.js');
    await (options.remembered ? runListRemembered(ctx) : runList(ctx));
  });
}
