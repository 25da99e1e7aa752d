// `aip traces list`: the traces of the chosen source (the tee's store, folded first; or an emulator),
// summed up (traces/view/model.ts), filtered (traces/view/filter.ts), newest first. On a terminal a
// table; piped, tab-separated rows with whole ids; --json, --jsonl, --jq the summaries; -q the ids.

import type { Context } from '../../context.js';
import { printTable } from '../../output/table.js';
import { parseTraceFilter } from '../../traces/view/filter.js';
import { groupTraces } from '../../traces/view/model.js';
import { traceColumns } from '../../traces/view/render.js';
import { traceSource } from '../../traces/view/sources.js';
import { DEFAULT_TRACE_LIMIT } from './flags.js';
import type { TraceListOptions } from './list.js';

export async function runList(ctx: Context, options: TraceListOptions): Promise<void> {
  const { io } = ctx;
  // A bad term is known before anything is read.
  const filter = parseTraceFilter(options.filter);
  const source = traceSource(ctx, options.emulator);
  const sinceMs = options.since === undefined ? undefined : Date.parse(options.since);
  const groups = groupTraces(await source.spans(sinceMs));
  const rows = (filter ? groups.filter(filter) : groups)
    .slice(0, options.limit ?? DEFAULT_TRACE_LIMIT)
    .map((group) => group.summary);
  if (ctx.json) {
    io.json(rows);
    return;
  }
  if (io.quiet) {
    for (const row of rows) io.out(row.trace_id);
    return;
  }
  await ctx.pageLongOutput();
  const empty =
    groups.length > 0
      ? 'No trace matches'
      : options.emulator
        ? `No span is in ${source.name}${options.since ? ' since then' : ''}`
        : `No trace is in the local store${options.since ? ' since then' : ''}: a gateway started with --tee (aip traces serve --tee) keeps the spans it forwards`;
  printTable(io, rows, traceColumns(io), { empty });
}
