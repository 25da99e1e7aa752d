// `aip compare SOURCE...`: a metric by step from train rl runs, eval results and models' checkpoints,
// overlaid: a row per series on stdout (tab-separated when piped), the chart on a terminal (or with
// --plot), the series as one JSON document with --json, and with --report a page or a Markdown report.

import type { Context } from '../../context.js';
import { UsageError } from '../../errors/errors.js';
import { overlayChart } from '../../output/overlay-plot.js';
import { printTable } from '../../output/table.js';
import { summarize } from '../../report/compare.js';
import { reportNumber, signedNumber } from '../../report/model.js';
import type { CompareOptions } from './compare.js';
import { classify, readSeries, type SourceSeries } from './sources.js';

/** More series than a chart can tell apart (its glyphs and colours). */
export const MAX_SERIES = 8;

function uniqueLabels(series: SourceSeries[]): void {
  const seen = new Map<string, number>();
  for (const s of series) {
    const n = (seen.get(s.label) ?? 0) + 1;
    seen.set(s.label, n);
    if (n > 1) s.label = `${s.label} (${n})`;
  }
}

function document(metric: string, series: readonly SourceSeries[]) {
  return {
    metric,
    x: 'step',
    series: series.map((s) => ({
      label: s.label,
      kind: s.kind,
      source: s.source,
      summary: summarize(s, metric),
      points: s.points.map((p) => ({ step: p.x, value: p.y, ...(p.label ? { label: p.label } : {}) })),
    })),
  };
}

function printSeries(ctx: Context, metric: string, series: readonly SourceSeries[], plot: boolean): void {
  const { io } = ctx;
  if (io.quiet) {
    for (const s of series) io.out(s.label);
    return;
  }
  const rows = series.map((s) => ({ s, sum: summarize(s, metric) }));
  printTable(io, rows, [
    { header: 'series', value: (r) => r.s.label },
    { header: 'kind', value: (r) => r.s.kind },
    { header: 'points', value: (r) => r.sum.points },
    { header: 'first', value: (r) => reportNumber(r.sum.first) },
    { header: 'last', value: (r) => reportNumber(r.sum.last) },
    { header: 'best', value: (r) => reportNumber(r.sum.best) },
    {
      header: 'change',
      value: (r) => signedNumber(r.sum.change),
      color: (text, r, style) =>
        !r.sum.change ? text : r.sum.change > 0 ? style.green(text) : style.red(text),
    },
  ]);
  if (!plot) return;
  io.out();
  io.out(`${metric} by step`);
  const chart = overlayChart(
    series.map((s) => ({ label: s.label, points: s.points.map((p) => [p.x, p.y] as const) })),
    { width: Math.min(io.columns, 120), height: 14, style: io.style },
  );
  for (const line of chart) io.out(line);
}

export async function runCompare(ctx: Context, given: string[], options: CompareOptions): Promise<void> {
  const { io } = ctx;
  const metric = options.metric ?? 'reward';
  if (options.plot === true && ctx.json)
    throw new UsageError('--plot draws a chart; it does not combine with --json');
  // The report's format (its name) is checked before anything is read or sent.
  const { reportFormat, writeReport } =
    options.report !== undefined ? await import('../../report/write.js') : {};
  if (options.report !== undefined) reportFormat!(options.report);
  const sources = given.map((g) => classify(ctx, g));
  await ctx.pageLongOutput();
  const series = await readSeries(ctx, sources, metric);
  if (series.length > MAX_SERIES)
    throw new UsageError(
      `${series.length} series: at most ${MAX_SERIES} can be told apart in one chart; compare fewer sources`,
    );
  uniqueLabels(series);
  if (options.report !== undefined) {
    const { compareReportData } = await import('../../report/compare.js');
    const format = await writeReport!(
      options.report,
      compareReportData({ metric, series, title: options.title }),
    );
    io.info(`Wrote the ${format === 'html' ? 'HTML' : 'Markdown'} report to ${options.report}`);
  }
  if (ctx.json) return io.json(document(metric, series));
  printSeries(ctx, metric, series, options.plot ?? io.isStdoutTTY);
}
