// The defaults and names the sampling flags show in their help. Kept apart from the code that uses
// them: a command's definition is built on every start-up, and must not load that code.

export const DEFAULT_GROUP_SIZE = 4;
export const DEFAULT_CONCURRENCY = 4;
export const DEFAULT_REWARD_TIMEOUT_S = 30;
/** RL needs samples that differ: a group of identical answers has nothing to compare. */
export const DEFAULT_TEMPERATURE = 1;

export const BUILT_IN_REWARDS = ['exact', 'contains', 'regex', 'json-match'] as const;
export type BuiltInReward = (typeof BUILT_IN_REWARDS)[number];

/** CPU seconds per process inside the sandbox, unless --sandbox-cpu says. */
export const DEFAULT_SANDBOX_CPU_S = 60;
/** MiB of address space per process inside the sandbox, unless --sandbox-memory says. */
export const DEFAULT_SANDBOX_MEMORY_MIB = 4096;
