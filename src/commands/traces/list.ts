// `aip traces list`: its flags, help and examples; the code that runs is list.run.ts.

import type { Context } from '../../context.js';
import { examples } from '../examples.js';
import { collect, parseTime } from '../parsers.js';
import type { OptionsOf, Parent } from '../types.js';
import { DEFAULT_TRACE_LIMIT, wholeNumber } from './flags.js';

function define(traces: Parent) {
  const list = traces
    .command('list')
    .description(
      "the traces kept locally by `traces serve --tee` (or an emulator's, --emulator), newest first: root span, start, duration, spans, errors, tokens, models",
    )
    .option(
      '--since <time>',
      'only traces with a span started since: an age (1h, 7d) or an ISO date',
      parseTime,
    )
    .option(
      '--filter <term>',
      'only traces that match: error, name~REGEX, model=M, service=S, tool=T, duration>2s, tokens>1000… (repeatable; all must match; see docs/traces-read.md)',
      collect,
    )
    .option(
      '--limit <n>',
      `at most this many, the newest (default ${DEFAULT_TRACE_LIMIT})`,
      wholeNumber('--limit', 1, 1_000_000),
    )
    .option('--emulator', 'read the spans of the emulator behind the trace URL instead of the local store');
  return examples(list, [
    'aip traces list --since 1h',
    'aip traces list --filter error --filter model=openai/gpt-oss-20b',
    "aip traces list --filter 'name~^invoke_agent' --jsonl",
    'aip --profile local traces list --emulator --json',
  ]);
}

export type TraceListOptions = OptionsOf<typeof define>;

export function registerList(traces: Parent, ctx: Context): void {
  define(traces).action(async (options) => {
    const { runList } = await import('./list.run.js');
    await runList(ctx, options);
  });
}
