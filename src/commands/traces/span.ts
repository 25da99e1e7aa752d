// `aip traces span`: its flags, help and examples; the code that runs is span.run.ts.

import { Option } from '@commander-js/extra-typings';
import type { Context } from '../../context.js';
import { examples } from '../examples.js';
import type { OptionsOf, Parent } from '../types.js';
import { spanAttributes } from './flags.js';

function define(traces: Parent) {
  const span = spanAttributes(
    traces
      .command('span')
      .description(
        'send one span made from the command line, and print its traceparent; a plain span unless --operation, --agent, --tool or --conversation make it a GenAI one',
      )
      .option('--name <name>', 'span name (required for a plain span; default: e.g. invoke_agent NAME)')
      .option('--start <time>', 'start: now, Unix seconds, or an RFC 3339 time (default now)')
      .option('--end <time>', 'end (default now)')
      .addOption(new Option('--status <status>', 'span status').choices(['unset', 'ok', 'error']))
      .option('--status-message <text>', 'a description of the status (with --status error)'),
  );
  return examples(span, [
    'start=$(date +%s.%N); ./deploy.sh; aip traces span --name deploy --start "$start"',
    'export TRACEPARENT=$(aip traces span --name pipeline)',
    'aip traces span --name step --status error --status-message "tests failed"',
    'export TRACEPARENT=$(aip traces span --agent planner --conversation "$RUN_ID" --start "$start")',
    'aip traces span --tool get_weather --start "$t0" --attr gen_ai.tool.call.id=call_1',
  ]);
}

export type SpanOptions = OptionsOf<typeof define>;

export function registerSpan(traces: Parent, ctx: Context): void {
  define(traces).action(async (options) => {
    const { runSpan } = await import('./span.run.js');
    await runSpan(ctx, options);
  });
}
