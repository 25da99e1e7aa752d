// A split of the tasks into N shards, so that N machines (a GitHub Actions matrix, a Kubernetes Indexed
// Job) each sample one: `--shard I/N`, I from 1 to N. A task's shard depends on its id and N alone:
// 1 + (the first 48 bits of SHA-256 of the id's UTF-8, big-endian) mod N. So every task is in exactly
// one shard whatever N is, every machine computes the same split without talking to the others, and a
// task added to the file leaves every other task where it was (a split by position would move them,
// and a shard resumed after the file grew would then hold tasks of another). The price: the shards
// are balanced only on average (a few tasks over many shards may leave one empty).
//
// Pure: nothing read or written. Loaded when rollouts or eval runs with --shard, never at start-up.

import { createHash } from 'node:crypto';

/** Shard `index` of `count`, numbered from 1 (`--shard 1/3`, `2/3`, `3/3`). */
export interface Shard {
  index: number;
  count: number;
}

/** The most shards a split is made into. */
export const MAX_SHARDS = 10_000;

/** The shard (1 to count) that the task `id` is in. */
export function shardOfTask(id: string, count: number): number {
  const digest = createHash('sha256').update(id, 'utf8').digest();
  return (digest.readUIntBE(0, 6) % count) + 1;
}

/** The tasks of one shard, in the order given. */
export function tasksOfShard<T extends { id: string }>(tasks: readonly T[], shard: Shard): T[] {
  return tasks.filter((task) => shardOfTask(task.id, shard.count) === shard.index);
}

/** As given on the command line: "2/3". */
export function describeShard(shard: Shard): string {
  return `${shard.index}/${shard.count}`;
}
