// `aip traces show TRACE`: the trace a unique prefix names (unknown: exit 3; ambiguous: exit 2, the
// candidates named), as a tree (traces/view/tree.ts) drawn by traces/view/render.ts. --json: the
// summary and every span in tree order with its depth, attributes, events, links and resource;
// --jsonl (and --jq with it): those spans one a line.

import type { Context } from '../../context.js';
import { summarize } from '../../traces/view/model.js';
import { traceHeading, treeLines } from '../../traces/view/render.js';
import { resolveTraceId, traceSource } from '../../traces/view/sources.js';
import { buildTree } from '../../traces/view/tree.js';
import type { TraceShowOptions } from './show.js';

export async function runShow(ctx: Context, given: string, options: TraceShowOptions): Promise<void> {
  const { io } = ctx;
  const source = traceSource(ctx, options.emulator);
  const id = await resolveTraceId(source, given);
  const spans = await source.trace(id);
  const tree = buildTree(spans);
  const trace = summarize(tree.map((line) => line.span));
  if (ctx.json) {
    const ordered = tree.map((line) => ({ depth: line.depth, ...line.span }));
    io.json(ctx.globals.jsonl ? ordered : { trace, spans: ordered });
    return;
  }
  if (io.quiet) {
    for (const line of tree) io.out(line.span.span_id);
    return;
  }
  await ctx.pageLongOutput();
  io.out(traceHeading(io, trace));
  for (const line of treeLines(io, tree, trace)) io.out(line);
}
