// What `aip rollouts` leaves on GitHub Actions when the run ends with its groups written (also when
// every trajectory failed, exit 1; nothing on Ctrl-C or when the run stops on an error): step outputs
// (groups written, trajectories, failed ones, mean reward) and a summary, with why samples failed,
// the most frequent reasons first. Reasons are the reward command's or the server's words: outside
// text, cut and escaped, and only the first few kinds are kept, however long the run.

import type { GitHubActions } from '../ci/github.js';
import { markdownTable } from '../ci/markdown.js';
import { markdownCell } from '../ci/summary-table.js';
import { formatDuration } from '../output/time.js';
import type { RolloutTotals } from './run.js';
import type { Task } from './tasks.js';

/** Reasons told apart: past this many kinds, the rest are counted together. */
const MAX_REASONS = 20;
const REASONS_SHOWN = 10;
const MAX_REASON_CHARS = 300;

/** Why samples failed, by reason (the group's exceptions), with a task that had it. */
export class FailureReasons {
  private readonly reasons = new Map<string, { count: number; task: string }>();
  /** Failures of a reason beyond the MAX_REASONS kept. */
  private others = 0;

  /** Counts a written group's exceptions: "sample 2: reward: timed out after 30s". */
  add(group: Record<string, unknown>, task: Task): void {
    const exceptions = Array.isArray(group.exceptions) ? group.exceptions : [];
    for (const exception of exceptions) {
      const message = String((exception as { message?: unknown })?.message ?? 'unknown');
      // The sample's number makes every message different: the reason is what follows it.
      // Cut to what the summary shows, never between the halves of a character.
      const reason = message
        .replace(/^sample \d+: /, '')
        .slice(0, MAX_REASON_CHARS)
        .replace(/[\uD800-\uDBFF]$/, '');
      const seen = this.reasons.get(reason);
      if (seen) seen.count++;
      else if (this.reasons.size < MAX_REASONS) this.reasons.set(reason, { count: 1, task: task.id });
      else this.others++;
    }
  }

  /** The reasons, most frequent first, and the failures under no kept reason. */
  list(): { reasons: Array<{ reason: string; count: number; task: string }>; others: number } {
    const reasons = [...this.reasons].map(([reason, r]) => ({ reason, ...r }));
    return { reasons: reasons.sort((a, b) => b.count - a.count), others: this.others };
  }
}

export interface RolloutsReport {
  model: string;
  tasks: number;
  /** The groups file; undefined when the groups went to stdout. */
  output: string | undefined;
  groupsBefore: number;
  totals: RolloutTotals;
  seed: number;
  elapsedMs: number;
  failures: FailureReasons;
}

const meanOf = (totals: RolloutTotals) =>
  totals.trajectories > 0 ? totals.rewardSum / totals.trajectories : null;

function failureSection(failures: FailureReasons): string[] {
  const { reasons, others } = failures.list();
  if (reasons.length === 0) return [];
  const shown = reasons.slice(0, REASONS_SHOWN);
  const left = reasons.slice(REASONS_SHOWN).reduce((n, r) => n + r.count, others);
  const parts = [
    '#### Why samples failed\n',
    markdownTable(
      ['reason', 'samples', 'a task'],
      shown.map((r) => [markdownCell(r.reason, MAX_REASON_CHARS), String(r.count), markdownCell(r.task)]),
    ),
  ];
  if (left > 0)
    parts.push(`… and ${left} more failed samples, for other reasons (each group's exceptions say why)\n`);
  return parts;
}

function pace(totals: RolloutTotals, elapsedMs: number): string {
  const rate = elapsedMs > 0 ? (totals.requests / (elapsedMs / 1000)).toFixed(1) : '0';
  const throttled = totals.throttled > 0 ? `, ${totals.throttled} answered 429 and asked again` : '';
  return `${formatDuration(elapsedMs)}, ${rate} rollouts/s${throttled}`;
}

function summary(report: RolloutsReport): string {
  const { totals } = report;
  const mean = meanOf(totals);
  const heading =
    totals.failed > 0 && totals.trajectories === 0
      ? '### Rollouts: every trajectory failed'
      : `### Rollouts: ${totals.groups} group${totals.groups === 1 ? '' : 's'} written`;
  const where = report.output === undefined ? 'to stdout' : `to ${markdownCell(report.output)}`;
  const before = report.groupsBefore > 0 ? ` (${report.groupsBefore} there before: resumed)` : '';
  const rows: Array<[string, string]> = [
    ['Model', markdownCell(report.model)],
    ['Groups', `${totals.groups} written ${where}${before}, of ${report.tasks} tasks`],
    ['Trajectories', `${totals.trajectories} scored, ${totals.failed} failed`],
    ['Mean reward', mean === null ? '–' : mean.toFixed(3)],
    ['Time', pace(totals, report.elapsedMs)],
    ['Seed', String(report.seed)],
  ];
  return [
    `${heading}\n`,
    markdownTable(
      ['', ''],
      rows.map(([k, v]) => [`**${k}**`, v]),
    ),
    ...failureSection(report.failures),
  ].join('\n');
}

/** The step outputs and the step summary of a run that wrote its groups. */
export function reportRollouts(gha: GitHubActions, report: RolloutsReport): void {
  const mean = meanOf(report.totals);
  gha.setOutputs({
    'groups-written': report.totals.groups,
    trajectories: report.totals.trajectories,
    'failed-trajectories': report.totals.failed,
    'mean-reward': mean ?? '',
  });
  gha.appendSummary(summary(report));
}
