// Trajectory groups (RL training data and `models log`): TrajectoryGroup → Trajectory → messages and
// choices, as the OpenAPI document defines them, plus the optional fields of its later revision.

import { isObject } from '../lib/json.js';
import { functionTool, messageOrChoice } from './chat-schema.js';
import {
  anyOf,
  arr,
  bool,
  dateTime,
  type Issue,
  int,
  nullable,
  num,
  obj,
  record,
  str,
  validate,
} from './schema.js';

const tools = nullable(arr(functionTool));

const history = obj({ messages_and_choices: arr(messageOrChoice) }, { tools });

export const trajectory = obj(
  {},
  {
    messages_and_choices: arr(messageOrChoice),
    tools,
    additional_histories: arr(history),
    reward: num,
    initial_policy_version: nullable(int),
    final_policy_version: nullable(int),
    metrics: record(anyOf('a number or a boolean', num, bool)),
    metadata: record(nullable(anyOf('a number, a string, a boolean or null', num, str, bool))),
    logs: arr(str),
    start_time: dateTime,
    exchanges: record(() => undefined),
  },
);

export const trajectoryGroup = obj(
  { trajectories: arr(trajectory) },
  {
    exceptions: arr(obj({ type: str, message: str, traceback: str })),
    metadata: record(() => undefined),
    metrics: record(anyOf('a number or a boolean', num, bool)),
    logs: arr(str),
  },
);

export interface GroupStats {
  groups: number;
  trajectories: number;
  minReward: number | undefined;
  maxReward: number | undefined;
}

export function emptyGroupStats(): GroupStats {
  return { groups: 0, trajectories: 0, minReward: undefined, maxReward: undefined };
}

/** Checks one group; on success adds it to the running totals. */
export function checkGroup(value: unknown, stats: GroupStats): Issue[] {
  const issues = validate(trajectoryGroup, value);
  if (issues.length > 0 || !isObject(value)) return issues;
  const list = value.trajectories as Array<Record<string, unknown>>;
  stats.groups++;
  stats.trajectories += list.length;
  for (const t of list) {
    const reward = typeof t.reward === 'number' ? t.reward : 0;
    stats.minReward = stats.minReward === undefined ? reward : Math.min(stats.minReward, reward);
    stats.maxReward = stats.maxReward === undefined ? reward : Math.max(stats.maxReward, reward);
  }
  return issues;
}
