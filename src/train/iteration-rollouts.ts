// One iteration's rollouts: the tasks not yet in its groups file, sampled from the iteration's
// checkpoint with the iteration's seed (the rollouts code, src/rollouts/), a group appended as each is
// complete. The file is always opened to resume: a stopped iteration carries on where it was, and the
// groups it wrote are neither sampled again nor changed.

import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Context } from '../context.js';
import { CliError } from '../errors/errors.js';
import { isObject } from '../lib/json.js';
import { openGroupFile, readGroupFile } from '../rollouts/group-file.js';
import { rolloutsWithProgress } from '../rollouts/progress-report.js';
import { rolloutClient, rolloutPlan, type SamplingOptions, traceHook } from '../rollouts/setup.js';
import type { Task } from '../rollouts/tasks.js';
import type { IterationRecord, RolloutSummary } from './run-dir.js';

export interface SamplingSetup extends SamplingOptions {
  params: Record<string, unknown>;
}

/** The totals of a groups file, whichever run wrote its groups. */
export function summarizeGroups(groups: readonly unknown[]): RolloutSummary {
  let trajectories = 0;
  let failed = 0;
  let rewardSum = 0;
  for (const group of groups) {
    if (!isObject(group)) continue;
    const list = Array.isArray(group.trajectories) ? group.trajectories : [];
    trajectories += list.length;
    for (const t of list) if (isObject(t) && typeof t.reward === 'number') rewardSum += t.reward;
    failed += Array.isArray(group.exceptions) ? group.exceptions.length : 0;
  }
  return {
    groups: groups.length,
    trajectories,
    failed,
    mean_reward: trajectories > 0 ? rewardSum / trajectories : null,
  };
}

/**
 * Samples what the iteration's file lacks. Returns false when `signal` stopped it (what was written
 * stays); every group written, true.
 */
export async function sampleIteration(
  ctx: Context,
  iteration: IterationRecord,
  where: { file: string; model: string; label: string },
  tasks: readonly Task[],
  sampling: SamplingSetup,
  signal: AbortSignal,
): Promise<boolean> {
  const { io } = ctx;
  mkdirSync(dirname(where.file), { recursive: true });
  const file = openGroupFile(readGroupFile(where.file, { resume: true, force: false }), (message) =>
    io.warn(message),
  );
  try {
    const pending = tasks.filter((task) => !file.done.has(task.id));
    if (pending.length === 0) return true;
    const plan = rolloutPlan(ctx, { ...sampling, seed: iteration.seed, model: where.model, tasks: pending });
    io.info(
      `${where.label}: sampling ${pending.length} task${pending.length === 1 ? '' : 's'} × ${plan.groupSize} from ${where.model}${file.done.size > 0 ? ` (${file.done.size} done before)` : ''}`,
    );
    const totals = await rolloutsWithProgress(ctx, await rolloutClient(ctx), plan, file, signal, {
      label: where.label,
      traceExchange: await traceHook(ctx, sampling, where.model),
    });
    if (signal.aborted) return false;
    if (totals.groups < pending.length)
      throw new CliError(
        `internal: ${pending.length - totals.groups} groups of ${where.label} were not written`,
      );
    return true;
  } finally {
    file.close();
  }
}
