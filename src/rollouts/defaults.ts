// The defaults and names the sampling flags show in their help. Kept apart from the code that uses
// them: a command's definition is built on every start-up, and must not load that code.

export const DEFAULT_GROUP_SIZE = 4;
export const DEFAULT_CONCURRENCY = 4;
export const DEFAULT_REWARD_TIMEOUT_S = 30;
/** A judge's attempt: a large model reasoning over a group of long replies takes its time. */
export const DEFAULT_JUDGE_TIMEOUT_S = 120;
/** RL needs samples that differ: a group of identical answers has nothing to compare. */
export const DEFAULT_TEMPERATURE = 1;

export const BUILT_IN_REWARDS = ['exact', 'contains', 'regex', 'json-match'] as const;
export type BuiltInReward = (typeof BUILT_IN_REWARDS)[number];

/** `--reward judge:MODEL`: a model of the Inference API scores the replies (rollouts/judge.ts). */
export const JUDGE_PREFIX = 'judge:';
/** A built-in reward, or judge:MODEL. */
export type RewardName = BuiltInReward | `judge:${string}`;
/** The longest rubric --rubric takes: it goes with every judge request. */
export const MAX_RUBRIC_BYTES = 64 * 1024;

/** CPU seconds per process inside the sandbox, unless --sandbox-cpu says. */
export const DEFAULT_SANDBOX_CPU_S = 60;
/** MiB of address space per process inside the sandbox, unless --sandbox-memory says. */
export const DEFAULT_SANDBOX_MEMORY_MIB = 4096;
