// What an eval gives besides its table: --plot, the mean reward and pass rate over the steps at the
// terminal (checkpoints of one model, by step), and --report FILE, the table, the charts, the per-task
// diff and, for each changed task, its samples under each checkpoint (report/, HTML or Markdown);
// --save FILE, the document --json prints, in a file (what aip compare reads).

import type { Context } from '../context.js';
import { writeFileAtomic } from '../fs/atomic-write.js';
import { writeError } from '../fs/write-error.js';
import type { EvalDocument } from '../report/eval-document.js';
import type { Task } from '../rollouts/tasks.js';
import type { CheckpointRun } from './evaluate.js';
import { type EvalReport, evalDocument } from './report.js';
import { taskDiffs } from './statistics.js';

/** The prompt of a task, as text: its last user turn. */
function promptOf(task: Task): string | undefined {
  const user = [...task.messages].reverse().find((m) => m.role === 'user');
  const content = user?.content;
  if (typeof content === 'string') return content;
  return content === undefined ? undefined : JSON.stringify(content);
}

/** --plot: mean reward and pass rate over the steps of the checkpoints that have one. */
export async function plotEval(ctx: Context, report: EvalReport): Promise<void> {
  const { evalSeries } = await import('../report/from-eval.js');
  const { overlayChart } = await import('../output/overlay-plot.js');
  const document = evalDocument(report) as unknown as EvalDocument;
  const { io } = ctx;
  for (const [title, value] of [
    ['mean reward', (c: EvalDocument['checkpoints'][number]) => c.mean],
    ['pass rate', (c: EvalDocument['checkpoints'][number]) => c.pass_rate],
  ] as const) {
    const { series, stepless } = evalSeries(document, value);
    if (series.every((s) => s.points.length < 2)) {
      io.info(
        `--plot: ${title} needs two checkpoints with steps to draw${stepless.length ? ` (${stepless.join(', ')} has none)` : ''}`,
      );
      return;
    }
    io.out();
    io.out(`${title} by step`);
    const chart = overlayChart(
      series.map((s) => ({ label: s.label, points: s.points.map((p) => [p.x, p.y] as const) })),
      { width: Math.min(io.columns, 120), height: 12, style: io.style },
    );
    for (const line of chart) io.out(line);
  }
}

/**
 * --report FILE: the eval's document, its diff (made here when --diff was not given, as a report is
 * about what changed) and the samples of each changed task. Checked by name before anything is sent
 * (checkReportName), written atomically.
 */
export async function writeEvalReport(
  file: string,
  report: EvalReport,
  runs: readonly CheckpointRun[],
  tasks: readonly Task[],
  summary: string[],
): Promise<void> {
  const { evalReportData } = await import('../report/from-eval.js');
  const { writeReport } = await import('../report/write.js');
  const diff =
    report.diff ??
    (runs.length > 1
      ? (({ changed, counts }) => ({ tasks: changed, counts }))(
          taskDiffs(
            tasks.map((t) => t.id),
            runs.map((r) => r.tasks),
          ),
        )
      : undefined);
  const byId = new Map(tasks.map((t) => [t.id, t]));
  const samples = (diff?.tasks ?? []).map((changed) => ({
    task: changed.id,
    prompt: promptOf(byId.get(changed.id)!),
    samples: runs.flatMap((run, i) =>
      (run.samples?.get(changed.id) ?? []).map((s) => ({
        checkpoint: report.checkpoints[i]!.model,
        reward: s.reward,
        text: s.text,
        ...(s.error ? { error: s.error } : {}),
      })),
    ),
  }));
  const document = evalDocument({ ...report, ...(diff ? { diff } : {}) });
  await writeReport(
    file,
    evalReportData({ document: document as unknown as EvalDocument, summary, samples }),
  );
}

/** The report's file name says its format: checked before anything is sampled. */
export async function checkReportName(file: string): Promise<void> {
  (await import('../report/write.js')).reportFormat(file);
}

/** --save FILE: the eval's JSON document, written atomically (a half-written file is never left). */
export function saveEval(file: string, document: Record<string, unknown>): void {
  try {
    writeFileAtomic(file, `${JSON.stringify(document, null, 2)}\n`, { followSymlinks: true });
  } catch (error) {
    throw writeError(file, error, { exit: 'error', outcome: 'the results were not saved' });
  }
}
