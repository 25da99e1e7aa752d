// `aip events`: its argument, flags, help and examples; the code that runs is events.run.ts.

import { Argument } from '@commander-js/extra-typings';
import type { Context } from '../../context.js';
import { examples } from '../examples.js';
import { parseInterval, parseLimit } from '../parsers.js';
import type { OptionsOf, Parent } from '../types.js';
import { valueKind } from '../value-kinds.js';

function define(program: Parent) {
  const events = program
    .command('events')
    .description("a training job's events, oldest first: a page, every page, or followed as they come")
    .addArgument(
      valueKind(
        'job',
        new Argument(
          '<job>',
          'job id, or the start of one created from this machine (at least 4 characters)',
        ),
      ),
    )
    .option(
      '--after <id>',
      'start after this event id (the cursor printed at the end of a page, or on Ctrl-C)',
    )
    .option('--limit <n>', 'events per page, 1-100 (default 20)', parseLimit)
    .option('--all', 'every page')
    .option(
      '--follow',
      'keep polling until the job ends; survives dropped connections, never repeats an event',
    )
    .option('--interval <seconds>', 'seconds between polls with --follow (default 1)', parseInterval);
  return examples(events, [
    'aip events 3f0c',
    'aip events 3f0c --all --json | jq "map(select(.type == \\"gradient_step\\") | .data.reward)"',
    'aip events 3f0c --follow --jsonl > events.jsonl',
  ]);
}

export type EventsOptions = OptionsOf<typeof define>;

export function registerEvents(program: Parent, ctx: Context): void {
  define(program).action(async (job, options) => {
    const { runEvents } = await import('./events.run.js');
    await runEvents(ctx, job, options);
  });
}
