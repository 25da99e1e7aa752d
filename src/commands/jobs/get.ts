// `aip jobs get`: its argument, help and examples; the code that runs is get.run.ts.

import { Argument } from '@commander-js/extra-typings';
import type { Context } from '../../context.js';
import { examples } from '../examples.js';
import type { Parent } from '../types.js';
import { valueKind } from '../value-kinds.js';
import { JOB } from './arguments.js';

function define(jobs: Parent) {
  const get = jobs
    .command('get')
    .description(
      'the job and its state derived from its events (queued, running k/n, succeeded, failed), with the latest metrics',
    )
    .addArgument(valueKind('job', new Argument('<job>', JOB)));
  return examples(get, ['aip jobs get 3f0c', 'aip jobs get 3f0c2a1e-… --json | jq .state']);
}

export function registerGet(jobs: Parent, ctx: Context): void {
  define(jobs).action(async (job) => {
    const { runGet } = await import('./get.run.js');
    await runGet(ctx, job);
  });
}
