// `aip checkpoints list`: one page (with the cursor for the next), every page (--all), or a plot.

import { allPages } from '../../api/pagination.js';
import type { Checkpoint } from '../../api/types.js';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors/errors.js';
import { ownValue } from '../../lib/own.js';
import { withArgument } from '../../lib/shell-word.js';
import { resolveModelArg, withModel } from '../../models/resolve.js';
import { lineChart } from '../../output/plot.js';
import { checkpointTable, printCheckpoints, unknownMetric } from './format.js';
import type { ListOptions } from './list.js';

function allCheckpointPages(ctx: Context, id: string, options: ListOptions): AsyncIterable<Checkpoint[]> {
  const training = ctx.training();
  return allPages(
    (after) => training.listCheckpoints(id, { after, limit: options.limit ?? 100, order: options.order }),
    options.after,
    ctx.limits.pages,
    // No reader left (a pager quit, `| head`): no more pages are asked for.
    { stop: () => ctx.io.outputClosed },
  );
}

async function* allCheckpoints(ctx: Context, id: string, options: ListOptions): AsyncIterable<Checkpoint> {
  for await (const page of allCheckpointPages(ctx, id, options)) yield* page;
}

export async function fetchAllCheckpoints(
  ctx: Context,
  id: string,
  options: ListOptions = {},
): Promise<Checkpoint[]> {
  const all: Checkpoint[] = [];
  for await (const checkpoint of allCheckpoints(ctx, id, options)) all.push(checkpoint);
  return all;
}

function plot(ctx: Context, checkpoints: Checkpoint[], metric: string, label: string): void {
  const points = checkpoints
    .filter((c) => typeof ownValue(c.metrics, metric) === 'number')
    .map((c) => [c.step, ownValue(c.metrics, metric)!] as const);
  if (points.length === 0) {
    throw unknownMetric(checkpoints, metric, `of ${label} `);
  }
  const { io } = ctx;
  io.out(`${metric} over ${points.length} checkpoint${points.length === 1 ? '' : 's'} of ${label}`);
  for (const line of lineChart(points, { width: Math.min(io.columns, 120), height: 12 })) io.out(line);
}

export async function runList(ctx: Context, ref: string, options: ListOptions): Promise<void> {
  const { io } = ctx;
  await ctx.pageLongOutput();
  if (options.plot !== undefined && ctx.json)
    throw new UsageError('--plot draws a chart; it does not combine with --json');
  const model = resolveModelArg(ctx, ref);
  if (options.all && ctx.globals.jsonl && options.plot === undefined) {
    // JSON Lines: each checkpoint as its page arrives, none kept (a model may have many).
    return withModel(ctx, model, async () => {
      for await (const checkpoint of allCheckpoints(ctx, model.id, options)) {
        // No reader left (a pager quit, `| head`): no more pages are asked for.
        if (io.outputClosed) return;
        io.jsonLine(checkpoint);
        await io.drained();
      }
    });
  }
  if (options.all && !ctx.json && options.plot === undefined) {
    // A table (TSV when piped): each page shown as it arrives, so that a reader that has gone (a pager
    // that quit, `| head`) stops the paging; none kept once shown.
    return withModel(ctx, model, async () => {
      const table = checkpointTable(io);
      for await (const page of allCheckpointPages(ctx, model.id, options)) {
        if (io.outputClosed) return;
        table.add(page);
        await io.drained();
      }
      if (!io.outputClosed) table.end();
    });
  }
  if (options.all || options.plot !== undefined) {
    const checkpoints = await withModel(ctx, model, () => fetchAllCheckpoints(ctx, model.id, options));
    if (options.plot !== undefined) return plot(ctx, checkpoints, options.plot, model.label);
    if (ctx.json) return io.json(checkpoints);
    return printCheckpoints(io, checkpoints);
  }
  const page = await withModel(ctx, model, () =>
    ctx
      .training()
      .listCheckpoints(model.id, { after: options.after, limit: options.limit, order: options.order }),
  );
  if (ctx.json) io.json(page.data);
  else printCheckpoints(io, page.data);
  if (page.has_more && page.last_id) {
    const next = ['--after', page.last_id, ...(options.order ? ['--order', options.order] : [])];
    io.info(
      `More checkpoints: ${ctx.commandLine(withArgument(['checkpoints', 'list'], ref, next))} (or --all)`,
    );
  }
}
