// The report of `aip compare`: the series overlaid in one chart, and a row per series.

import { lowerIsBetter } from '../checkpoints/names.js';
import { type ReportData, type ReportSeries, type ReportTable, signedNumber } from './model.js';

export interface SeriesSummary {
  points: number;
  first: number | null;
  last: number | null;
  best: number | null;
  /** Last minus first (null with fewer than one point). */
  change: number | null;
}

/** Its points in short; `best` the highest value, or the lowest for a loss (as :best chooses). */
export function summarize(series: ReportSeries, metric: string): SeriesSummary {
  const ys = series.points.map((p) => p.y);
  if (ys.length === 0) return { points: 0, first: null, last: null, best: null, change: null };
  const first = ys[0]!;
  const last = ys.at(-1)!;
  const best = lowerIsBetter(metric) ? Math.min(...ys) : Math.max(...ys);
  return { points: ys.length, first, last, best, change: last - first };
}

export function compareTable(metric: string, series: readonly ReportSeries[]): ReportTable {
  return {
    caption: `${metric} by series`,
    columns: ['series', 'source', 'points', 'first', 'last', 'best', 'change'],
    rows: series.map((s) => {
      const sum = summarize(s, metric);
      return [
        s.label,
        s.source ?? s.label,
        sum.points,
        sum.first,
        sum.last,
        sum.best,
        signedNumber(sum.change),
      ];
    }),
  };
}

export function compareReportData(options: {
  metric: string;
  series: ReportSeries[];
  title?: string;
}): ReportData {
  const { metric, series } = options;
  return {
    title: options.title ?? `${metric}: ${series.length} series compared`,
    summary: [`${metric} by step, from ${series.map((s) => s.source ?? s.label).join(', ')}.`],
    charts: [{ title: `${metric} by step`, x_label: 'step', y_label: metric, series }],
    tables: [compareTable(metric, series)],
  };
}
