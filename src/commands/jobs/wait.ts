// `aip jobs wait`: its argument, flags, help and examples; the code that runs is wait.run.ts.

import { Argument } from '@commander-js/extra-typings';
import type { Context } from '../../context.js';
import { examples } from '../examples.js';
import { parseInterval } from '../parsers.js';
import type { OptionsOf, Parent } from '../types.js';
import { valueKind } from '../value-kinds.js';
import { givenWords, parseStall, STALL_FLAG, STALL_HELP } from '../wait-flags.js';
import { JOB } from './arguments.js';

function define(jobs: Parent) {
  const wait = jobs
    .command('wait')
    .description(
      'follow a job to its end: exit 0 succeeded, 5 failed, 7 --timeout reached, 8 stalled; Ctrl-C stops watching, not the job',
    )
    .addArgument(valueKind('job', new Argument('<job>', JOB)))
    .option('--interval <seconds>', 'seconds between polls (default 1)', parseInterval)
    .option(STALL_FLAG, STALL_HELP, parseStall);
  return examples(wait, [
    'aip jobs wait 3f0c',
    'aip --timeout 3600 jobs wait 3f0c || echo "not done"',
    'aip jobs wait 3f0c --stall 15m   # exit 8 when no event comes for 15 minutes',
  ]);
}

export type WaitOptions = OptionsOf<typeof define>;

export function registerWait(jobs: Parent, ctx: Context): void {
  define(jobs).action(async (job, options, command) => {
    const { runWait } = await import('./wait.run.js');
    await runWait(ctx, job, options, givenWords(command));
  });
}
