// `aip jobs forget`: its arguments, flags, help and examples; the code that runs is forget.run.ts.

import { Argument } from '@commander-js/extra-typings';
import type { Context } from '../../context.js';
import { examples } from '../examples.js';
import { forgetOptions } from '../forget.js';
import type { OptionsOf, Parent } from '../types.js';
import { valueKind } from '../value-kinds.js';
import { JOB } from './arguments.js';

function define(jobs: Parent) {
  const forget = jobs
    .command('forget')
    .description(
      'forget jobs remembered on this machine, for this base URL (the server is not asked to change anything)',
    )
    .addArgument(valueKind('job', new Argument('[job...]', JOB)));
  return examples(forgetOptions(forget, 'job'), [
    'aip jobs forget 3f0c',
    'aip --profile local jobs forget --stale',
    'aip jobs forget --all --yes',
  ]);
}

export type ForgetOptions = OptionsOf<typeof define>;

export function registerForget(jobs: Parent, ctx: Context): void {
  define(jobs).action(async (refs, options) => {
    const { runJobsForget } = await import('./forget.run.js');
    await runJobsForget(ctx, refs, options);
  });
}
