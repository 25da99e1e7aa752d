// The defaults eval's flags show in their help. Kept apart from the code that uses them: a command's
// definition is built on every start-up, and must not load that code.

/** One sample per task: an eval asks how good a checkpoint is, not for samples that differ. */
export const DEFAULT_EVAL_GROUP_SIZE = 1;
/** Fixed, so that two evals of one checkpoint agree and two checkpoints are asked the same things. */
export const DEFAULT_EVAL_SEED = 0;
/** A trajectory passes at full reward: the built-in rewards give 0 or 1. */
export const DEFAULT_PASS_THRESHOLD = 1;
