// A trajectory group made from the outcomes of its K samples: the pure half of a rollout run
// (run.ts), with nothing sent, written or timed here. What is built is what `jobs create rl` and
// `models log` take: checked by the same validator before it is handed on.

import { CliError } from '../errors/errors.js';
import { formatPath } from '../validate/schema.js';
import { checkGroup, emptyGroupStats } from '../validate/trajectory.js';
import type { GroupOrigin } from './group-file.js';
import type { Task } from './tasks.js';

/** One sample's end: a scored trajectory, or why it has none (the request's answer, the reward). */
export type Outcome = { trajectory: Record<string, unknown>; reward: number } | { failure: string };

/** How a run sampled and scored, kept in each group's metadata so --resume can go on the same way. */
export type RunOrigin = Omit<GroupOrigin, 'task_id'>;

/** The group of `task` from its samples' outcomes, in sample order; throws if it fails its own check. */
export function buildGroup(
  task: Task,
  outcomes: readonly Outcome[],
  origin: RunOrigin,
): Record<string, unknown> {
  const trajectories = outcomes.flatMap((o) => ('trajectory' in o ? [o.trajectory] : []));
  const exceptions = outcomes.flatMap((o, sample) =>
    'failure' in o
      ? [{ type: 'RolloutError', message: `sample ${sample}: ${o.failure}`, traceback: '' }]
      : [],
  );
  const group: Record<string, unknown> = {
    trajectories,
    ...(exceptions.length > 0 ? { exceptions } : {}),
    metadata: { ...(task.metadata ?? {}), task_id: task.id, ...origin },
  };
  const issues = checkGroup(group, emptyGroupStats());
  if (issues.length > 0)
    throw new CliError(
      `internal: the group of task ${task.id} does not pass its own check: ${formatPath(issues[0]!.path)}: ${issues[0]!.msg}`,
    );
  return group;
}

/**
 * Collects outcomes as samples end, in any order, and hands back a task's outcomes once all K are in
 * (and forgets them): a group is written the moment it is whole, never twice.
 */
export class GroupAssembler<T = Outcome> {
  private readonly pending = new Map<string, T[]>();

  constructor(private readonly groupSize: number) {}

  add(taskId: string, sample: number, outcome: T): T[] | undefined {
    const outcomes = this.pending.get(taskId) ?? [];
    this.pending.set(taskId, outcomes);
    if (outcomes[sample] !== undefined)
      throw new CliError(`internal: sample ${sample} of task ${taskId} ended twice`);
    outcomes[sample] = outcome;
    if (outcomes.filter(Boolean).length < this.groupSize) return undefined;
    this.pending.delete(taskId);
    return outcomes;
  }

  /** Tasks with some samples in and some not (a stopped run's: never written). */
  get unfinished(): number {
    return this.pending.size;
  }
}
