// `aip checkpoints list`: one page (with the cursor for the next), every page (--all), or a plot. On a
// terminal, the best by reward (as name:best resolves) is marked: in a column of its own when one
// page holds every checkpoint, and after the table of --all (streamed a page at a time, the best known
// only at its end). Piped rows, --json and --jsonl keep their shape.

import type { Checkpoint } from '../../api/types.js';
import { type BestCheckpoint, bestCheckpoint, metricText } from '../../checkpoints/best.js';
import { checkpointPages, listAllCheckpoints } from '../../checkpoints/list.js';
import { type BestBy, parseBestBy } from '../../checkpoints/names.js';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors/errors.js';
import { ownValue } from '../../lib/own.js';
import { withArgument } from '../../lib/shell-word.js';
import { resolveModelArg, withModel } from '../../models/resolve.js';
import type { IO } from '../../output/io.js';
import { lineChart } from '../../output/plot.js';
import { tableWriter } from '../../output/table.js';
import { checkpointTable, metricsText, printCheckpoints, unknownMetric } from './format.js';
import type { ListOptions } from './list.js';

function allCheckpointPages(ctx: Context, id: string, options: ListOptions): AsyncIterable<Checkpoint[]> {
  return checkpointPages(ctx, id, options);
}

async function* allCheckpoints(ctx: Context, id: string, options: ListOptions): AsyncIterable<Checkpoint> {
  for await (const page of allCheckpointPages(ctx, id, options)) yield* page;
}

export async function fetchAllCheckpoints(
  ctx: Context,
  id: string,
  options: ListOptions = {},
): Promise<Checkpoint[]> {
  return listAllCheckpoints(ctx, id, options);
}

/** The table on a terminal with the best checkpoint marked (when there is one by the metric). */
function printMarked(io: IO, checkpoints: readonly Checkpoint[], by: BestBy): void {
  const best: BestCheckpoint | undefined = bestCheckpoint(checkpoints, by);
  if (!best) {
    printCheckpoints(io, checkpoints);
    return;
  }
  const table = tableWriter<Checkpoint>(
    io,
    [
      { header: 'step', value: (c) => c.step },
      { header: 'id', value: (c) => c.id },
      { header: 'metrics', value: (c) => metricsText(c.metrics) },
      {
        header: 'best',
        value: (c) => (c === best.checkpoint ? `best ${by.metric}${by.lowest ? ' (lowest)' : ''}` : ''),
        color: (text, _c, style) => style.green(text),
      },
    ],
    { empty: 'No checkpoints' },
  );
  table.add(checkpoints);
  table.end();
}

/** Whether the best is marked: a table on a terminal (not --json, --quiet or a plot). */
const marking = (ctx: Context, options: ListOptions) =>
  ctx.io.isStdoutTTY && !ctx.json && !ctx.globals.jsonl && !ctx.io.quiet && options.plot === undefined;

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
  const by = parseBestBy(undefined, ref);
  const model = resolveModelArg(ctx, ref);
  const mark = marking(ctx, options);
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
    // that quit, `| head`) stops the paging; none kept once shown. On a terminal, the best is known
    // once every page is in: said after the table.
    return withModel(ctx, model, async () => {
      const table = checkpointTable(io);
      let best: BestCheckpoint | undefined;
      for await (const page of allCheckpointPages(ctx, model.id, options)) {
        if (io.outputClosed) return;
        table.add(page);
        if (mark) best = bestCheckpoint(best ? [best.checkpoint, ...page] : page, by);
        await io.drained();
      }
      if (io.outputClosed) return;
      table.end();
      if (best)
        io.info(`Best by ${by.metric}: step ${best.checkpoint.step} (${metricText(by.metric, best.value)})`);
    });
  }
  if (options.all || options.plot !== undefined) {
    const checkpoints = await withModel(ctx, model, () => fetchAllCheckpoints(ctx, model.id, options));
    if (options.plot !== undefined) return plot(ctx, checkpoints, options.plot, model.label);
    return io.json(checkpoints);
  }
  const page = await withModel(ctx, model, () =>
    ctx
      .training()
      .listCheckpoints(model.id, { after: options.after, limit: options.limit, order: options.order }),
  );
  const whole = !page.has_more && options.after === undefined;
  if (ctx.json) io.json(page.data);
  else if (mark && whole) printMarked(io, page.data, by);
  else printCheckpoints(io, page.data);
  if (page.has_more && page.last_id) {
    const next = ['--after', page.last_id, ...(options.order ? ['--order', options.order] : [])];
    io.info(
      `More checkpoints: ${ctx.commandLine(withArgument(['checkpoints', 'list'], ref, next))} (or --all)`,
    );
  }
}
