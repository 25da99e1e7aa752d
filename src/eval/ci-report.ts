// What `aip eval` leaves on GitHub Actions once it has results: whether it passes, is under
// --fail-under, or has a checkpoint with no scored sample (nothing on Ctrl-C, which reports nothing).
// Step outputs for a gate and for later steps (the last checkpoint's figures, the one --fail-under
// judges, and every checkpoint's as JSON), and a summary: a row per checkpoint, the verdict, and with
// --diff the tasks that changed. Checkpoint names and task ids are outside text (the command line's,
// the tasks file's): cut and escaped, and the tables capped (ci/summary-table.ts).

import { costCell, tokensOf } from '../budget/start.js';
import type { GitHubActions } from '../ci/github.js';
import { cappedTable, markdownCell } from '../ci/summary-table.js';
import { plural } from '../output/plural.js';
import { type EvalReport, evalDocument, fixed, percent, signed } from './report.js';
import type { TaskDiff } from './statistics.js';

export interface EvalVerdict {
  report: EvalReport;
  /** Tasks in the file, and samples per task. */
  tasks: number;
  groupSize: number;
  failUnder: number | undefined;
  /** Why the eval fails (exit 1); undefined when it passes. */
  failure: string | undefined;
}

/** More checkpoints than this, and the diff's table shows the first and the last only. */
const MAX_DIFF_COLUMNS = 8;

function outputs(verdict: EvalVerdict) {
  const { report } = verdict;
  const last = report.checkpoints.at(-1)!;
  const counts = report.diff?.counts;
  return {
    // The checkpoint --fail-under judges; empty (not left out) when it had no scored sample.
    'mean-reward': last.mean ?? '',
    'pass-rate': last.pass_rate ?? '',
    passed: verdict.failure === undefined,
    // Every checkpoint, in the order given, as --json has them: fromJSON(…)[0].mean in a workflow.
    results: JSON.stringify(evalDocument(report).checkpoints),
    'tasks-improved': counts?.improved,
    'tasks-worse': counts?.worse,
  };
}

function checkpointTable(report: EvalReport): string {
  return cappedTable(
    ['checkpoint', 'samples', 'mean reward', 'std', 'pass rate', 'failed', 'tokens', 'cost'],
    report.checkpoints.map((c) => [
      markdownCell(c.model),
      String(c.samples),
      fixed(c.mean),
      fixed(c.std),
      percent(c.pass_rate),
      String(c.failed),
      String(tokensOf(c.spent)),
      costCell(c.spent),
    ]),
    { more: (n) => `… and ${plural(n, 'more checkpoint')}` },
  );
}

function gate(verdict: EvalVerdict): string | undefined {
  const last = verdict.report.checkpoints.at(-1)!;
  if (verdict.failUnder === undefined || last.mean === null) return undefined;
  const under = last.mean < verdict.failUnder;
  return `**--fail-under ${verdict.failUnder}**: ${markdownCell(last.model)} has a mean reward of ${fixed(last.mean)}, ${under ? 'under it: failed' : 'not under it: passed'}\n`;
}

function diffSection(report: EvalReport): string[] {
  if (!report.diff) return [];
  const { tasks, counts } = report.diff;
  const names = report.checkpoints.map((c) => c.model);
  const columns = names.length <= MAX_DIFF_COLUMNS ? names.map((_, i) => i) : [0, names.length - 1];
  const unscored = counts.unscored > 0 ? `, ${counts.unscored} not scored under both` : '';
  const parts = [
    '#### Tasks that changed\n',
    `${markdownCell(names[0]!)} → ${markdownCell(names.at(-1)!)}: ${counts.improved} improved, ${counts.worse} worse, ${counts.unchanged} unchanged${unscored}\n`,
  ];
  if (tasks.length === 0) return [...parts, 'No task has a different mean reward under these checkpoints.\n'];
  parts.push(
    cappedTable(
      ['task', ...columns.map((i) => markdownCell(names[i]!, 40)), 'change'],
      tasks.map((t: TaskDiff) => [
        markdownCell(t.id),
        ...columns.map((i) => fixed(t.means[i] ?? null)),
        signed(t.change),
      ]),
      { more: (n) => `… and ${plural(n, 'more task')} that changed (\`--json\` lists every one)` },
    ),
  );
  return parts;
}

function summary(verdict: EvalVerdict): string {
  const { report } = verdict;
  const parts = [
    verdict.failure === undefined
      ? '### Eval passed\n'
      : `### Eval failed\n\n${markdownCell(verdict.failure, 400)}\n`,
    `${plural(verdict.tasks, 'task')}, ${plural(verdict.groupSize, 'sample')} each, seed ${report.seed}, pass threshold ${report.pass_threshold}: the same requests for every checkpoint\n`,
    checkpointTable(report),
  ];
  const verdictLine = gate(verdict);
  if (verdictLine) parts.push(verdictLine);
  parts.push(...diffSection(report));
  return parts.join('\n');
}

/** The step outputs and the step summary of an eval that has results. */
export function reportEval(gha: GitHubActions, verdict: EvalVerdict): void {
  gha.setOutputs(outputs(verdict));
  gha.appendSummary(summary(verdict));
}
