// `aip history show`: its argument, help and examples; the code that runs is show.run.ts.

import { Argument } from '@commander-js/extra-typings';
import type { Context } from '../../context.js';
import { examples } from '../examples.js';
import type { Parent } from '../types.js';

function define(history: Parent) {
  const show = history
    .command('show')
    .description(
      'one command in full: its line, profile, URLs, start and end, exit and error, models, jobs, ids created, usage per model, bodies if kept',
    )
    .addArgument(new Argument('<id>', 'its id (as `aip history` lists it), or the start of its run key'));
  return examples(show, ['aip history show 42', 'aip history show 42 --json | jq .usage']);
}

export function registerShow(history: Parent, ctx: Context): void {
  define(history).action(async (id) => {
    const { runShow } = await import('./show.run.js');
    await runShow(ctx, id);
  });
}
