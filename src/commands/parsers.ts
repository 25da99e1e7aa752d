// Option values shared by several commands, checked as commander parses them (a bad one is a usage
// error, exit 2, before anything is sent).

import { InvalidArgumentError } from '@commander-js/extra-typings';
import { parseSince } from '../history/since.js';
import { BUILT_IN_REWARDS, type BuiltInReward, JUDGE_PREFIX, type RewardName } from '../rollouts/defaults.js';
import type { Shard } from '../rollouts/shard.js';

export function parseLimit(value: string): number {
  if (!/^\d+$/.test(value) || Number(value) < 1 || Number(value) > 100) {
    throw new InvalidArgumentError('expected a whole number from 1 to 100 (the API pages at most 100)');
  }
  return Number(value);
}

/** Seconds between polls. */
export function parseInterval(value: string): number {
  const seconds = Number(value);
  if (!/^\d+(\.\d+)?$/.test(value.trim()) || seconds <= 0 || seconds > 3600) {
    throw new InvalidArgumentError('expected seconds, more than 0 and at most 3600');
  }
  return seconds;
}

/** A finite number, for a flag named in the message. */
export function parseNumber(flag: string): (value: string) => number {
  return (value) => {
    const n = Number(value);
    if (value.trim() === '' || !Number.isFinite(n))
      throw new InvalidArgumentError(`${flag}: expected a number`);
    return n;
  };
}

/** One number, or a comma-separated list of them (a value per batch). */
export function parseNumberList(value: string): number | number[] {
  const parts = value.split(',').map((p) => p.trim());
  if (parts.some((p) => p === '' || !Number.isFinite(Number(p)))) {
    throw new InvalidArgumentError(
      'expected a number, or numbers separated by commas, e.g. 5e-5 or 1e-5,2e-5',
    );
  }
  const numbers = parts.map(Number);
  return numbers.length === 1 ? numbers[0]! : numbers;
}

/** A repeatable option's values, in the order given. */
export function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

/** A whole number within bounds, for a flag named in the message. */
export function parseWhole(flag: string, min: number, max: number): (value: string) => number {
  return (value) => {
    if (!/^\d+$/.test(value.trim()) || Number(value) < min || Number(value) > max)
      throw new InvalidArgumentError(`${flag}: expected a whole number from ${min} to ${max}`);
    return Number(value);
  };
}

/** Seconds, more than 0 and at most a day (a reward command's timeout). */
export function parseSecondsUpToADay(value: string): number {
  const seconds = Number(value);
  if (!/^\d+(\.\d+)?$/.test(value.trim()) || seconds <= 0 || seconds > 86_400)
    throw new InvalidArgumentError('expected seconds, more than 0 and at most 86400');
  return seconds;
}

/**
 * --shard I/N: shard I of N, numbered from 1 (1/3, 2/3, 3/3), as jest, vitest and playwright number
 * theirs. A 0-based index (Kubernetes' JOB_COMPLETION_INDEX, GitHub's strategy.job-index) is refused
 * with the way to write it, never taken as shard 1: a matrix of 0..N-1 would otherwise run shard 1
 * twice, or miss shard N, without a word.
 */
export function parseShard(value: string): Shard {
  const match = /^\s*(\d+)\s*\/\s*(\d+)\s*$/.exec(value);
  if (!match) throw new InvalidArgumentError('expected I/N, shard I of N shards, e.g. 2/3');
  const [index, count] = [Number(match[1]), Number(match[2])];
  if (count < 1 || count > 10_000)
    throw new InvalidArgumentError('expected I/N with N, the number of shards, from 1 to 10000');
  if (index === 0)
    throw new InvalidArgumentError(
      `shards are numbered from 1 to ${count}: for a 0-based index (JOB_COMPLETION_INDEX, strategy.job-index) give $((INDEX + 1))/${count}`,
    );
  if (index > count)
    throw new InvalidArgumentError(`there is no shard ${index} of ${count}: I is from 1 to ${count}`);
  return { index, count };
}

/** --reward: a built-in reward by name, or judge:MODEL (a model of the Inference API). */
export function parseRewardName(value: string): RewardName {
  if ((BUILT_IN_REWARDS as readonly string[]).includes(value)) return value as BuiltInReward;
  if (value.startsWith(JUDGE_PREFIX)) {
    const model = value.slice(JUDGE_PREFIX.length).trim();
    if (model === '')
      throw new InvalidArgumentError(
        'judge: needs a model of the Inference API, e.g. judge:openai/gpt-oss-120b (aip models list)',
      );
    return `${JUDGE_PREFIX}${model}`;
  }
  throw new InvalidArgumentError(`expected ${BUILT_IN_REWARDS.join(', ')} or judge:MODEL`);
}

/**
 * --since, --until, --older-than: an age (7d, 24h, 30m) or an ISO date, as ISO text (history/since.ts),
 * as the history and usage keep their times.
 */
export function parseTime(value: string): string {
  const iso = parseSince(value);
  if (iso === undefined)
    throw new InvalidArgumentError('expected an age (7d, 24h, 30m, 2w) or an ISO date (2026-11-01)');
  return iso;
}
