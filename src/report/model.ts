// What a report holds, whichever command makes it (`aip compare --report`, and `aip eval --report`) and
// whichever format it is written in (html.ts: one self-contained page; markdown.ts: a pull-request
// comment or a step summary). A renderer gets this and nothing else: every string in it is plain text
// from outside (a model's name, a task's text, a sample), escaped by the renderer for its format.
//
// Nothing here depends on time or order of arrival: the same data gives the same bytes.

/** One point of a chart: x is a step (a checkpoint's, an iteration's sampled checkpoint). */
export interface ReportPoint {
  x: number;
  y: number;
  /** What the point is (a checkpoint's name, "iteration 3"), shown on hover in HTML. */
  label?: string;
}

export interface ReportSeries {
  /** The legend's name for it. */
  label: string;
  /** Where it came from (a run directory, an eval file, model:NAME), when not the label. */
  source?: string;
  points: ReportPoint[];
}

export interface ReportChart {
  title: string;
  x_label: string;
  y_label: string;
  series: ReportSeries[];
}

export type ReportCell = string | number | null;

export interface ReportTable {
  /** A heading above the table. */
  caption: string;
  columns: string[];
  rows: ReportCell[][];
  /** Shown instead of an empty table. */
  empty?: string;
}

/** A task whose mean reward differs between checkpoints (eval --diff: statistics.ts TaskDiff). */
export interface ReportTaskDiff {
  id: string;
  /** Its mean reward under each checkpoint, in the order of `ReportTasks.checkpoints`. */
  means: Array<number | null>;
  /** Last minus first; null when either has none. */
  change: number | null;
}

export interface ReportTasks {
  /** The checkpoints compared, as named in the means' order. */
  checkpoints: string[];
  diffs: ReportTaskDiff[];
  counts?: { improved: number; worse: number; unchanged: number; unscored: number };
}

/** One sampled reply to a task under one checkpoint. */
export interface ReportSample {
  checkpoint: string;
  /** null: its reward could not be computed (`error` says why). */
  reward: number | null;
  /** The reply's text. */
  text: string;
  error?: string;
}

/** A task that changed, with its samples under each checkpoint. */
export interface ReportTaskSamples {
  task: string;
  /** The task's prompt, as text. */
  prompt?: string;
  samples: ReportSample[];
}

export interface ReportData {
  title: string;
  /** Lines of plain text under the title (what was compared, the seed, a verdict). */
  summary: string[];
  charts: ReportChart[];
  tables: ReportTable[];
  tasks?: ReportTasks;
  /** Samples of the changed tasks: the part the Markdown report drops first when it is too long. */
  samples?: ReportTaskSamples[];
}

/** A number as reports show it: three decimals, or "–" for none. */
export function reportNumber(value: ReportCell): string {
  if (value === null) return '–';
  if (typeof value === 'string') return value;
  if (Number.isInteger(value)) return String(value);
  return value.toFixed(3);
}

/** A change as reports show it: signed, three decimals. */
export function signedNumber(value: number | null): string {
  if (value === null) return '–';
  return `${value > 0 ? '+' : value < 0 ? '-' : ''}${Math.abs(value).toFixed(3)}`;
}
