// The report of an eval: from the document `aip eval --json` prints (evalDocument), plus what only the
// run that made it has, optional: the samples of the tasks that changed. `aip eval --report FILE`
// builds it from its own results; `aip compare` reads the document back from a file.

import { checkpointStep, type EvalDocument } from './eval-document.js';
import type { ReportData, ReportSeries, ReportTaskSamples } from './model.js';

export interface EvalReportInput {
  document: EvalDocument;
  /** Default: "Eval of N checkpoints". */
  title?: string;
  /** For each changed task (document.tasks), its samples under each checkpoint, with their rewards. */
  samples?: ReportTaskSamples[];
  /** More lines under the title (a --fail-under verdict, a shard). */
  summary?: string[];
}

/**
 * One series per model among the checkpoints (the name before `:stepN`), a point per checkpoint with
 * a step, x its step; checkpoints without a step, or without a value, are left out.
 */
export function evalSeries(
  document: EvalDocument,
  value: (c: EvalDocument['checkpoints'][number]) => number | null = (c) => c.mean,
): { series: ReportSeries[]; stepless: string[] } {
  const byName = new Map<string, ReportSeries>();
  const stepless: string[] = [];
  for (const c of document.checkpoints) {
    const { name, step } = checkpointStep(c);
    const y = value(c);
    if (step === undefined) {
      stepless.push(c.model);
      continue;
    }
    if (y === null) continue;
    let series = byName.get(name);
    if (!series) {
      series = { label: name, points: [] };
      byName.set(name, series);
    }
    series.points.push({ x: step, y, label: c.model });
  }
  for (const series of byName.values()) series.points.sort((a, b) => a.x - b.x);
  return { series: [...byName.values()], stepless };
}

export function evalReportData(input: EvalReportInput): ReportData {
  const { document } = input;
  const n = document.checkpoints.length;
  const { series } = evalSeries(document);
  const data: ReportData = {
    title: input.title ?? `Eval of ${n} checkpoint${n === 1 ? '' : 's'}`,
    summary: [`Seed ${document.seed}, pass threshold ${document.pass_threshold}.`, ...(input.summary ?? [])],
    charts:
      series.length > 0
        ? [{ title: 'mean reward by step', x_label: 'step', y_label: 'mean reward', series }]
        : [],
    tables: [
      {
        caption: 'Checkpoints',
        columns: ['checkpoint', 'samples', 'mean', 'std', 'pass rate', 'failed'],
        rows: document.checkpoints.map((c) => [
          c.model,
          c.samples,
          c.mean,
          c.std,
          c.pass_rate === null ? null : `${(c.pass_rate * 100).toFixed(1)}%`,
          c.failed,
        ]),
      },
    ],
  };
  if (document.tasks)
    data.tasks = {
      checkpoints: document.checkpoints.map((c) => c.model),
      diffs: document.tasks,
      ...(document.changes ? { counts: document.changes } : {}),
    };
  if (input.samples) data.samples = input.samples;
  return data;
}
