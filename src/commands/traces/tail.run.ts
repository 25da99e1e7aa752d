// `aip traces tail`: what arrives from now on, until Ctrl-C (exit 130) or a reader that goes away
// (`| head`, exit 0). Between looks it waits for the journal directory to change (the tee appending)
// or for --interval, never holding the store: `traces serve` appends and other readers read meanwhile.
// A trace is printed once, when its root span (one without a parent) has been folded, summed up from
// all its spans kept by then; a trace whose root never comes is printed only with --spans. JSON
// output is one object a line whatever the flag (--json, --jsonl, --jq), since a tail has no end.

import type { Context } from '../../context.js';
import { InterruptedError } from '../../errors/errors.js';
import { tableWriter } from '../../output/table.js';
import { journalDirOf } from '../../traces/store/paths.js';
import { journalWaker } from '../../traces/store/watch.js';
import { type SpanView, summarize, type TraceSummary } from '../../traces/view/model.js';
import { spanColumns, traceColumns } from '../../traces/view/render.js';
import { type TraceSource, traceSource } from '../../traces/view/sources.js';
import type { TraceTailOptions } from './tail.js';

const DEFAULT_INTERVAL_MS = 1000;
/** The traces already printed, remembered up to this many (the oldest forgotten first). */
const REMEMBERED = 100_000;

/** Each root span's trace, summed up, once. */
async function newTraces(
  source: TraceSource,
  spans: SpanView[],
  printed: Set<string>,
): Promise<TraceSummary[]> {
  const roots = spans.filter((s) => s.parent_id === null && !printed.has(s.trace_id));
  const ids = [...new Set(roots.map((s) => s.trace_id))];
  if (ids.length === 0) return [];
  for (const id of ids) {
    printed.add(id);
    if (printed.size > REMEMBERED) printed.delete(printed.values().next().value!);
  }
  // All of them in one look: the local store is folded and opened once, not once a trace.
  const traces = await source.traces(ids);
  return ids.flatMap((id) => {
    const all = traces.get(id) ?? [];
    return all.length > 0 ? [summarize(all)] : [];
  });
}

export async function runTail(ctx: Context, options: TraceTailOptions): Promise<void> {
  const { io } = ctx;
  const source = traceSource(ctx, options.emulator);
  const { signal, release } = ctx.interruptible({ orStdoutClosed: true });
  const waker = journalWaker(
    options.emulator ? undefined : journalDirOf(ctx.env),
    options.interval ?? DEFAULT_INTERVAL_MS,
  );
  const spanTable = ctx.json ? undefined : tableWriter(io, spanColumns(io));
  const traceTable = ctx.json ? undefined : tableWriter(io, traceColumns(io));
  const printed = new Set<string>();
  try {
    let place = await source.end();
    io.info(`Following ${source.name}; Ctrl-C to stop`);
    while (!signal.aborted) {
      const got = await source.after(place);
      place = got.place;
      const items: Array<SpanView | TraceSummary> = options.spans
        ? got.spans
        : await newTraces(source, got.spans, printed);
      if (ctx.json) for (const item of items) io.jsonLine(item);
      else if (options.spans) spanTable!.add(items as SpanView[]);
      else traceTable!.add(items as TraceSummary[]);
      await io.drained();
      await waker.wait(signal);
    }
  } finally {
    waker.close();
    release();
  }
  if (io.outputClosed) return;
  throw new InterruptedError();
}
