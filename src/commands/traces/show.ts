// `aip traces show`: its argument, flags, help and examples; the code that runs is show.run.ts.

import { Argument } from '@commander-js/extra-typings';
import type { Context } from '../../context.js';
import { examples } from '../examples.js';
import type { OptionsOf, Parent } from '../types.js';

function define(traces: Parent) {
  const show = traces
    .command('show')
    .description(
      'one trace as a tree of its spans, each under its parent, with its duration, a waterfall on a terminal, status, model, tokens and tool',
    )
    .addArgument(new Argument('<trace>', 'its trace id, or the first hex digits of one (a unique prefix)'))
    .option('--emulator', 'read the spans of the emulator behind the trace URL instead of the local store');
  return examples(show, [
    'aip traces show 4bf92f35',
    'aip traces show 4bf92f3577b34da6a3ce929d0e0e4736 --json | jq .trace',
    'aip traces show 4bf92f35 --jsonl --jq \'select(.status == "error")\'',
  ]);
}

export type TraceShowOptions = OptionsOf<typeof define>;

export function registerShow(traces: Parent, ctx: Context): void {
  define(traces).action(async (trace, options) => {
    const { runShow } = await import('./show.run.js');
    await runShow(ctx, trace, options);
  });
}
