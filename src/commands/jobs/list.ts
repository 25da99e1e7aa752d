// `aip jobs list`: its help and examples; the code that runs is list.run.ts.

import type { Context } from '../../context.js';
import { examples } from '../examples.js';
import type { Parent } from '../types.js';

function define(jobs: Parent) {
  const list = jobs
    .command('list')
    .description('the jobs created from this machine (the API cannot list them), newest first');
  return examples(list, ['aip jobs list', 'aip jobs list -q | head -1']);
}

export function registerList(jobs: Parent, ctx: Context): void {
  define(jobs).action(async () => {
    const { runList } = await import('./list.run.js');
    await runList(ctx);
  });
}
