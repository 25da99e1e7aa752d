// `aip traces tail`: its flags, help and examples; the code that runs is tail.run.ts.

import type { Context } from '../../context.js';
import { examples } from '../examples.js';
import type { OptionsOf, Parent } from '../types.js';
import { wholeNumber } from './flags.js';

function define(traces: Parent) {
  const tail = traces
    .command('tail')
    .description(
      'print traces as they arrive (each once its root span has come; --spans: every span), until Ctrl-C',
    )
    .option('--spans', 'print each span as it arrives, rather than each trace once its root span has')
    .option('--emulator', 'follow the spans of the emulator behind the trace URL instead of the local store')
    .option(
      '--interval <ms>',
      'look at least this often (default 1000; the local store is also watched for changes)',
      wholeNumber('--interval', 10, 600_000),
    );
  return examples(tail, [
    'aip traces tail',
    'aip traces tail --spans --jsonl',
    "aip traces tail --jq 'select(.errors > 0) | .trace_id'",
  ]);
}

export type TraceTailOptions = OptionsOf<typeof define>;

export function registerTail(traces: Parent, ctx: Context): void {
  define(traces).action(async (options) => {
    const { runTail } = await import('./tail.run.js');
    await runTail(ctx, options);
  });
}
