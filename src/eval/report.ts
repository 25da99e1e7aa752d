// What an eval prints: a row per checkpoint (as given on the command line), and with --diff the tasks
// whose mean reward changed, then how many tasks improved, got worse or stayed the same from the first
// checkpoint to the last. --json puts all of it in one document.

import type { Spent } from '../budget/budget.js';
import { costCell, tokensOf, totalOf } from '../budget/start.js';
import type { IO } from '../output/io.js';
import { printTable } from '../output/table.js';
import type { ChangeCounts, CheckpointStats, TaskDiff } from './statistics.js';

export interface CheckpointResult extends CheckpointStats {
  /** As given: name[:stepN] or the URI. */
  model: string;
  /** The Training API model it resolved to. */
  uri: string;
  /** What its samples (and a judge's verdicts on them) used. */
  spent: Spent;
}

export interface EvalReport {
  seed: number;
  pass_threshold: number;
  checkpoints: CheckpointResult[];
  diff?: { tasks: TaskDiff[]; counts: ChangeCounts };
}

export const fixed = (value: number | null) => (value === null ? '–' : value.toFixed(3));
export const percent = (value: number | null) => (value === null ? '–' : `${(value * 100).toFixed(1)}%`);
export const signed = (value: number | null) =>
  value === null ? '–' : `${value > 0 ? '+' : value < 0 ? '-' : ''}${Math.abs(value).toFixed(3)}`;

/** Every checkpoint's spend together. */
export function totalSpent(report: EvalReport): Spent {
  return totalOf(report.checkpoints.map((c) => c.spent));
}

export function evalDocument(report: EvalReport): Record<string, unknown> {
  return {
    seed: report.seed,
    pass_threshold: report.pass_threshold,
    checkpoints: report.checkpoints.map((c) => ({
      model: c.model,
      uri: c.uri,
      samples: c.samples,
      mean: c.mean,
      std: c.std,
      pass_rate: c.pass_rate,
      failed: c.failed,
      spent: c.spent,
    })),
    spent: totalSpent(report),
    ...(report.diff ? { tasks: report.diff.tasks, changes: report.diff.counts } : {}),
  };
}

export function printEval(io: IO, report: EvalReport): void {
  printTable(io, report.checkpoints, [
    { header: 'checkpoint', value: (c) => c.model },
    { header: 'samples', value: (c) => c.samples },
    { header: 'mean', value: (c) => fixed(c.mean) },
    { header: 'std', value: (c) => fixed(c.std) },
    { header: 'pass rate', value: (c) => percent(c.pass_rate) },
    {
      header: 'failed',
      value: (c) => c.failed,
      color: (text, c, style) => (c.failed > 0 ? style.yellow(text) : text),
    },
    { header: 'tokens', value: (c) => tokensOf(c.spent) },
    { header: 'cost', value: (c) => costCell(c.spent) },
  ]);
  if (!report.diff) return;
  const { tasks, counts } = report.diff;
  const names = report.checkpoints.map((c) => c.model);
  io.out();
  printTable(
    io,
    tasks,
    [
      { header: 'task', value: (t: TaskDiff) => t.id },
      ...names.map((name, i) => ({ header: name, value: (t: TaskDiff) => fixed(t.means[i] ?? null) })),
      {
        header: 'change',
        value: (t: TaskDiff) => signed(t.change),
        color: (text: string, t: TaskDiff, style) =>
          t.change === null || t.change === 0 ? text : t.change > 0 ? style.green(text) : style.red(text),
      },
    ],
    { empty: 'No task has a different mean reward under these checkpoints.' },
  );
  io.out();
  const unscored = counts.unscored > 0 ? `, ${counts.unscored} not scored under both` : '';
  io.out(
    `${names[0]} → ${names.at(-1)}: ${counts.improved} improved, ${counts.worse} worse, ${counts.unchanged} unchanged${unscored}`,
  );
}
