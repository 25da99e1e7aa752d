// What `aip usage --by` groups by. A module of its own: the command's definition, loaded at every
// start-up, needs the names and nothing of the aggregation (which loads the price table).

export const USAGE_KEYS = ['model', 'command', 'job', 'run', 'day'] as const;
export type UsageKey = (typeof USAGE_KEYS)[number];
