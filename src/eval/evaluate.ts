// One checkpoint of an eval: every task sampled with the rollouts machinery (no groups file; the
// groups are read as each completes), the rewards kept per task for the statistics and the diff.

import type OpenAI from 'openai';
import type { Context } from '../context.js';
import { rolloutsWithProgress } from '../rollouts/progress-report.js';
import type { RolloutEvents, RolloutPlan, RolloutTotals } from '../rollouts/run.js';
import type { TaskRewards } from './statistics.js';

export interface CheckpointRun {
  /** By task id. A task is missing when the run was stopped before its group completed. */
  tasks: Map<string, TaskRewards>;
  /** Why the first failed sample failed, to say so when none was scored. */
  firstFailure: string | undefined;
  totals: RolloutTotals;
}

export async function evaluateCheckpoint(
  ctx: Context,
  client: OpenAI,
  plan: RolloutPlan,
  label: string,
  signal: AbortSignal,
  traceExchange: RolloutEvents['traceExchange'],
): Promise<CheckpointRun> {
  const tasks = new Map<string, TaskRewards>();
  let firstFailure: string | undefined;
  const totals = await rolloutsWithProgress(ctx, client, plan, undefined, signal, {
    label,
    traceExchange,
    onGroup: (group, task) => {
      const trajectories = group.trajectories as Array<{ reward: number }>;
      const exceptions = (group.exceptions ?? []) as Array<{ message: string }>;
      firstFailure ??= exceptions[0]?.message;
      tasks.set(task.id, { rewards: trajectories.map((t) => t.reward), failed: exceptions.length });
    },
  });
  return { tasks, firstFailure, totals };
}
