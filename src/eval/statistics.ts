// The numbers of an eval: per checkpoint, the mean and spread of reward and the pass rate over the
// samples that were scored (a sample whose reward could not be computed is counted as failed, apart:
// a broken reward command says nothing about the checkpoint); per task, the mean reward under each
// checkpoint, and which tasks changed between them.

/** One task's samples under one checkpoint: the rewards of those scored, and how many failed. */
export interface TaskRewards {
  rewards: number[];
  failed: number;
}

export interface CheckpointStats {
  /** Every sample asked for, scored or failed. */
  samples: number;
  /** null when no sample was scored. */
  mean: number | null;
  /** The standard deviation of the scored rewards (of these samples, divided by n). */
  std: number | null;
  /** The share of scored samples whose reward is at least the pass threshold. */
  pass_rate: number | null;
  failed: number;
}

export function checkpointStats(tasks: Iterable<TaskRewards>, passThreshold: number): CheckpointStats {
  const rewards: number[] = [];
  let failed = 0;
  for (const task of tasks) {
    rewards.push(...task.rewards);
    failed += task.failed;
  }
  const samples = rewards.length + failed;
  if (rewards.length === 0) return { samples, mean: null, std: null, pass_rate: null, failed };
  const mean = average(rewards)!;
  const variance = average(rewards.map((r) => (r - mean) ** 2))!;
  const passed = rewards.filter((r) => r >= passThreshold).length;
  return { samples, mean, std: Math.sqrt(variance), pass_rate: passed / rewards.length, failed };
}

export function average(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  return values.reduce((sum, v) => sum + v, 0) / values.length;
}

export interface TaskDiff {
  id: string;
  /** The task's mean reward under each checkpoint, in the order given (null: none scored). */
  means: Array<number | null>;
  /** Last checkpoint's mean minus the first's (null when either has none). */
  change: number | null;
}

export interface ChangeCounts {
  improved: number;
  worse: number;
  unchanged: number;
  /** Tasks with no scored sample under the first or the last checkpoint: not compared. */
  unscored: number;
}

/**
 * The tasks whose mean reward is not the same under every checkpoint, the largest change (first to
 * last) first, then the widest spread, then in the file's order; and the counts between the first and
 * the last checkpoint over every task.
 */
export function taskDiffs(
  taskIds: readonly string[],
  perCheckpoint: ReadonlyArray<ReadonlyMap<string, TaskRewards>>,
): { changed: TaskDiff[]; counts: ChangeCounts } {
  const counts: ChangeCounts = { improved: 0, worse: 0, unchanged: 0, unscored: 0 };
  const changed: Array<TaskDiff & { order: number; spread: number }> = [];
  taskIds.forEach((id, order) => {
    const means = perCheckpoint.map((tasks) => average(tasks.get(id)?.rewards ?? []));
    const first = means[0] ?? null;
    const last = means.at(-1) ?? null;
    const change = first === null || last === null ? null : last - first;
    if (change === null) counts.unscored++;
    else if (change > 0) counts.improved++;
    else if (change < 0) counts.worse++;
    else counts.unchanged++;
    if (means.every((m) => m === means[0])) return;
    const scored = means.filter((m): m is number => m !== null);
    const spread = scored.length > 0 ? Math.max(...scored) - Math.min(...scored) : 0;
    changed.push({ id, means, change, order, spread });
  });
  changed.sort(
    (a, b) => Math.abs(b.change ?? 0) - Math.abs(a.change ?? 0) || b.spread - a.spread || a.order - b.order,
  );
  return { changed: changed.map(({ id, means, change }) => ({ id, means, change })), counts };
}
