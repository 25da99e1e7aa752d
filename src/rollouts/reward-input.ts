// What every reward that is not built in is given for one trajectory: a --reward-cmd on stdin, a
// --reward-server as the "trajectory" of a request line, a --reward-url in the request body.

import type { Task } from './tasks.js';

export interface RewardInput {
  task_id: string;
  reference: unknown;
  metadata: Record<string, unknown>;
  reply: string;
  trajectory: Record<string, unknown>;
}

export function rewardInput(task: Task, trajectory: Record<string, unknown>, reply: string): RewardInput {
  return {
    task_id: task.id,
    reference: task.reference ?? null,
    metadata: task.metadata ?? {},
    reply,
    trajectory,
  };
}
