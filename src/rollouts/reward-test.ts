// `aip reward test`: what a reward does on a task set, before any training is paid for. The pure half:
// the replies file's shape (--replies), the timing of each reward call, and the report built from the
// groups' outcomes — the distribution of rewards, the groups whose rewards do not vary (nothing for RL
// to learn from), the failures with their reasons, and the time per reward call — as a JSON document
// and as lines for a terminal. Nothing is read, sent or printed here.
//
// The replies file (--replies), JSON Lines, each line one reply or a group of them for a task of the
// tasks file:
//   {"task_id": "t1", "reply": "42"}
//   {"task_id": "t2", "replies": ["41", "42", "forty-two"]}
// Lines of the same task add to its group, in file order. task_id is a string or a whole number, as a
// task's id is; the task must be in --tasks. A task of --tasks with no reply is not tested.

import { formatNumber } from '../output/numbers.js';
import { plural } from '../output/plural.js';
import { oneLine } from '../output/text.js';
import { anyOf, arr, type Issue, int, nonEmpty, obj, str, validate } from '../validate/schema.js';
import { type GroupScorer, isGroupScorer, type Scorer, type ScorerLife } from './run.js';

// ---------------------------------------------------------------------------------------------------
// The replies file

export interface GivenReplies {
  task_id: string;
  replies: string[];
}

const replyLine = obj(
  { task_id: anyOf('a string or a whole number', str, int) },
  { reply: str, replies: nonEmpty(arr(str)) },
);

/**
 * The problems of one line of a replies file; `known` holds the ids of the tasks file. A line gives
 * "reply" or "replies", not both.
 */
export function replyLineIssues(value: unknown, known: ReadonlySet<string>): Issue[] {
  const issues = validate(replyLine, value);
  if (issues.length > 0) return issues;
  const line = value as { task_id: string | number; reply?: string; replies?: string[] };
  if (line.reply === undefined && line.replies === undefined)
    issues.push({
      path: [],
      type: 'missing',
      msg: 'give "reply" (one reply) or "replies" (a list of them)',
    });
  else if (line.reply !== undefined && line.replies !== undefined)
    issues.push({ path: ['replies'], type: 'value_error', msg: 'give "reply" or "replies", not both' });
  if (!known.has(String(line.task_id)))
    issues.push({
      path: ['task_id'],
      type: 'value_error',
      msg: `no task "${String(line.task_id)}" in the tasks file`,
    });
  return issues;
}

/** The replies of checked lines, grouped by task in the order tasks first appear. */
export function groupReplies(lines: readonly unknown[]): GivenReplies[] {
  const groups = new Map<string, string[]>();
  for (const value of lines) {
    const line = value as { task_id: string | number; reply?: string; replies?: string[] };
    const id = String(line.task_id);
    const replies = groups.get(id) ?? [];
    groups.set(id, replies);
    replies.push(...(line.replies ?? [line.reply!]));
  }
  return [...groups].map(([task_id, replies]) => ({ task_id, replies }));
}

// ---------------------------------------------------------------------------------------------------
// Timing each reward call

/**
 * The scorer, each call timed (from its start to its answer, a failed one included) into `durations`,
 * in milliseconds: a reply's, or a group's for a group scorer; prepare() and close() are the scorer's own.
 */
export function timedScorer<S extends Scorer | GroupScorer>(
  score: S,
  durations: number[],
  now: () => number,
): S {
  const time = async <T>(call: () => Promise<T>): Promise<T> => {
    const started = now();
    try {
      return await call();
    } finally {
      durations.push(now() - started);
    }
  };
  if (isGroupScorer(score)) {
    const timed: GroupScorer = {
      perGroup: true,
      scoreGroup: (task, members, signal) => time(() => score.scoreGroup(task, members, signal)),
    };
    return Object.assign(timed, life(score)) as S;
  }
  const timed: Scorer = (task, trajectory, reply, signal) =>
    time(() => (score as Scorer)(task, trajectory, reply, signal));
  return Object.assign(timed, life(score)) as S;
}

/** A scorer's prepare() and close(), those it has. */
function life(score: ScorerLife): ScorerLife {
  return {
    ...(score.prepare ? { prepare: () => score.prepare!() } : {}),
    ...(score.close ? { close: () => score.close!() } : {}),
  };
}

// ---------------------------------------------------------------------------------------------------
// The report

/** One task's group: the rewards of its scored samples, and why the others have none. */
export interface TaskOutcome {
  task_id: string;
  rewards: number[];
  failures: Array<{ sample: number; reason: string }>;
}

/** A group as a rollout run builds it (group.ts): its trajectories and its exceptions. */
export function outcomeOfGroup(taskId: string, group: Record<string, unknown>): TaskOutcome {
  const trajectories = (group.trajectories ?? []) as Array<{ reward: number }>;
  const exceptions = (group.exceptions ?? []) as Array<{ message: string }>;
  return {
    task_id: taskId,
    rewards: trajectories.map((t) => t.reward),
    failures: exceptions.map((e) => {
      const m = /^sample (\d+): ([\s\S]*)$/.exec(e.message);
      return m ? { sample: Number(m[1]), reason: m[2]! } : { sample: -1, reason: e.message };
    }),
  };
}

export interface HistogramBin {
  /** from === to: the bin of one reward value (a reward with few distinct values). */
  from: number;
  to: number;
  count: number;
}

export interface RewardDistribution {
  count: number;
  mean: number;
  std: number;
  min: number;
  max: number;
  quantiles: { p10: number; p25: number; p50: number; p75: number; p90: number };
  histogram: HistogramBin[];
}

export interface RewardTestReport {
  mode: 'sampled' | 'replies';
  /** The reward as given ("--reward exact", "--reward-cmd …"). */
  reward: string;
  tasks: number;
  samples: number;
  scored: number;
  failed: number;
  /** Null when nothing was scored. */
  rewards: RewardDistribution | null;
  /** Groups of two scored samples or more whose rewards are all the same. */
  constant_groups: Array<{ task_id: string; reward: number; samples: number }>;
  /** Groups with fewer than two scored samples: whether their rewards vary cannot be told. */
  too_small_groups: number;
  failures: Array<{ task_id: string; sample: number; reason: string }>;
  /** Milliseconds per reward call, each measured on its own; null when no call was made. */
  timing: { calls: number; median_ms: number; p95_ms: number; max_ms: number; total_ms: number } | null;
}

/** At most this many distinct values: a bin per value; more, HISTOGRAM_BINS bins of equal width. */
const DISTINCT_BINS = 10;
const HISTOGRAM_BINS = 10;

/** The q-quantile of sorted values, interpolated between the two nearest ranks (R's type 7). */
export function quantile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return Number.NaN;
  const at = (sorted.length - 1) * q;
  const low = Math.floor(at);
  const high = Math.ceil(at);
  return sorted[low]! + (sorted[high]! - sorted[low]!) * (at - low);
}

export function histogram(sorted: readonly number[]): HistogramBin[] {
  if (sorted.length === 0) return [];
  const counts = new Map<number, number>();
  for (const value of sorted) counts.set(value, (counts.get(value) ?? 0) + 1);
  if (counts.size <= DISTINCT_BINS)
    return [...counts].map(([value, count]) => ({ from: value, to: value, count }));
  const min = sorted[0]!;
  const max = sorted.at(-1)!;
  const width = (max - min) / HISTOGRAM_BINS;
  const bins = Array.from({ length: HISTOGRAM_BINS }, (_, i) => ({
    from: min + i * width,
    to: i === HISTOGRAM_BINS - 1 ? max : min + (i + 1) * width,
    count: 0,
  }));
  for (const value of sorted) bins[Math.min(HISTOGRAM_BINS - 1, Math.floor((value - min) / width))]!.count++;
  return bins;
}

export function distribution(rewards: readonly number[]): RewardDistribution | null {
  if (rewards.length === 0) return null;
  const sorted = [...rewards].sort((a, b) => a - b);
  const mean = sorted.reduce((sum, r) => sum + r, 0) / sorted.length;
  const variance = sorted.reduce((sum, r) => sum + (r - mean) ** 2, 0) / sorted.length;
  return {
    count: sorted.length,
    mean,
    std: Math.sqrt(variance),
    min: sorted[0]!,
    max: sorted.at(-1)!,
    quantiles: {
      p10: quantile(sorted, 0.1),
      p25: quantile(sorted, 0.25),
      p50: quantile(sorted, 0.5),
      p75: quantile(sorted, 0.75),
      p90: quantile(sorted, 0.9),
    },
    histogram: histogram(sorted),
  };
}

function timing(durations: readonly number[]): RewardTestReport['timing'] {
  if (durations.length === 0) return null;
  const sorted = [...durations].sort((a, b) => a - b);
  return {
    calls: sorted.length,
    median_ms: quantile(sorted, 0.5),
    p95_ms: quantile(sorted, 0.95),
    max_ms: sorted.at(-1)!,
    total_ms: sorted.reduce((sum, d) => sum + d, 0),
  };
}

export function buildReport(input: {
  mode: RewardTestReport['mode'];
  reward: string;
  outcomes: readonly TaskOutcome[];
  /** Milliseconds, one per reward call. */
  durations: readonly number[];
}): RewardTestReport {
  const { outcomes } = input;
  const rewards = outcomes.flatMap((o) => o.rewards);
  const failures = outcomes.flatMap((o) => o.failures.map((f) => ({ task_id: o.task_id, ...f })));
  const constant_groups = outcomes
    .filter((o) => o.rewards.length >= 2 && o.rewards.every((r) => r === o.rewards[0]))
    .map((o) => ({ task_id: o.task_id, reward: o.rewards[0]!, samples: o.rewards.length }));
  return {
    mode: input.mode,
    reward: input.reward,
    tasks: outcomes.length,
    samples: rewards.length + failures.length,
    scored: rewards.length,
    failed: failures.length,
    rewards: distribution(rewards),
    constant_groups,
    too_small_groups: outcomes.filter((o) => o.rewards.length < 2).length,
    failures,
    timing: timing(input.durations),
  };
}

// ---------------------------------------------------------------------------------------------------
// For a terminal

const BAR_WIDTH = 30;
/** Listed one per line, then "… and N more". */
const MAX_LISTED = 20;

export function formatMs(ms: number): string {
  if (ms >= 1000) return `${formatNumber(Number((ms / 1000).toPrecision(3)))} s`;
  return `${ms < 0.01 ? '<0.01' : formatNumber(Number(ms.toPrecision(3)))} ms`;
}

function binLabel(bin: HistogramBin): string {
  return bin.from === bin.to ? formatNumber(bin.from) : `${formatNumber(bin.from)} – ${formatNumber(bin.to)}`;
}

function more(total: number): string[] {
  return total > MAX_LISTED ? [`  … and ${total - MAX_LISTED} more (--json lists all)`] : [];
}

/** The report as lines for a terminal (stdout): counts, distribution, constant groups, failures, time. */
export function reportLines(report: RewardTestReport): string[] {
  const lines: string[] = [];
  const failed = report.failed > 0 ? `, ${report.failed} failed` : '';
  lines.push(
    `${report.reward}: ${plural(report.tasks, 'task')}, ${plural(report.samples, 'sample')}, ${report.scored} scored${failed}`,
  );
  lines.push('');
  const d = report.rewards;
  if (!d) lines.push('Rewards: none (no sample was scored)');
  else {
    const q = d.quantiles;
    const f = formatNumber;
    lines.push(`Rewards (${d.count})`);
    lines.push(`  mean ${f(d.mean)}  std ${f(d.std)}  min ${f(d.min)}  max ${f(d.max)}`);
    lines.push(`  p10 ${f(q.p10)}  p25 ${f(q.p25)}  median ${f(q.p50)}  p75 ${f(q.p75)}  p90 ${f(q.p90)}`);
    const labels = d.histogram.map(binLabel);
    const labelWidth = Math.max(...labels.map((l) => l.length));
    const countWidth = Math.max(...d.histogram.map((b) => String(b.count).length));
    const most = Math.max(...d.histogram.map((b) => b.count));
    d.histogram.forEach((bin, i) => {
      const length = bin.count === 0 ? 0 : Math.max(1, Math.round((bin.count / most) * BAR_WIDTH));
      lines.push(
        `  ${labels[i]!.padEnd(labelWidth)}  ${String(bin.count).padStart(countWidth)}  ${'█'.repeat(length)}`,
      );
    });
  }
  lines.push('');
  const constant = report.constant_groups;
  const judged = report.tasks - report.too_small_groups;
  if (judged === 0)
    lines.push(
      'Groups that do not vary: none could be judged (each needs two scored samples or more: -K 2+)',
    );
  else if (constant.length === 0) lines.push(`Groups that do not vary: none of ${judged}`);
  else {
    lines.push(
      `Groups that do not vary: ${constant.length} of ${judged} (every sample got the same reward: nothing for RL to learn from)`,
    );
    const idWidth = Math.max(...constant.slice(0, MAX_LISTED).map((c) => oneLine(c.task_id, 40).length));
    for (const c of constant.slice(0, MAX_LISTED))
      lines.push(`  ${oneLine(c.task_id, 40).padEnd(idWidth)}  ${c.samples} × ${formatNumber(c.reward)}`);
    lines.push(...more(constant.length));
  }
  if (report.too_small_groups > 0 && judged > 0)
    lines.push(
      `  (${plural(report.too_small_groups, 'group')} with fewer than two scored samples not judged)`,
    );
  lines.push('');
  if (report.failures.length === 0) lines.push('Failures: none');
  else {
    lines.push(`Failures (${report.failures.length})`);
    for (const f of report.failures.slice(0, MAX_LISTED))
      lines.push(`  ${oneLine(f.task_id, 40)} sample ${f.sample}: ${oneLine(f.reason)}`);
    lines.push(...more(report.failures.length));
  }
  lines.push('');
  const t = report.timing;
  lines.push(
    t
      ? `Time per reward call (${plural(t.calls, 'call')}): median ${formatMs(t.median_ms)}, p95 ${formatMs(t.p95_ms)}, max ${formatMs(t.max_ms)}`
      : 'Time per reward call: no call was made',
  );
  return lines;
}
