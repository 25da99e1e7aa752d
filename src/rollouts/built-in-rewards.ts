// The built-in rewards: a reply scored against the task's `reference`, 1 for a match and 0 otherwise.
//   exact       the reply, trimmed, is the reference (a string, or any of a list of strings)
//   contains    the reply contains the reference (or any of the list)
//   regex       the reply matches the reference, a JavaScript regular expression (or any of the list)
//   json-match  the reply (trimmed, a ```json fence allowed) is JSON equal to the reference
// Every task must have a reference, and a regex must compile: both are checked before anything is
// sampled, so that a run never spends its samples on a reward that cannot be computed.

import { isDeepStrictEqual } from 'node:util';
import { UsageError } from '../errors/errors.js';
import type { BuiltInReward } from './defaults.js';
import type { Task } from './tasks.js';

export type ReplyScorer = (reply: string) => number;

function strings(task: Task, reward: BuiltInReward): string[] {
  const { reference } = task;
  const list = Array.isArray(reference) ? reference : [reference];
  if (list.length === 0 || list.some((r) => typeof r !== 'string'))
    throw new UsageError(
      `task ${task.id}: --reward ${reward} needs a "reference" that is a string or a list of strings`,
    );
  return list as string[];
}

function jsonOf(reply: string): unknown {
  const fenced = /^```(?:json)?\s*\n([\s\S]*?)\n?```$/.exec(reply.trim());
  try {
    return JSON.parse(fenced ? fenced[1]! : reply.trim());
  } catch {
    return undefined;
  }
}

/** The scorer of one task; a usage error when the task cannot be scored this way. */
export function scorerFor(reward: BuiltInReward, task: Task): ReplyScorer {
  if (reward === 'json-match') {
    if (task.reference === undefined)
      throw new UsageError(`task ${task.id}: --reward json-match needs a "reference" to compare with`);
    return (reply) => (isDeepStrictEqual(jsonOf(reply), task.reference) ? 1 : 0);
  }
  const references = strings(task, reward);
  if (reward === 'exact') return (reply) => (references.includes(reply.trim()) ? 1 : 0);
  if (reward === 'contains') return (reply) => (references.some((r) => reply.includes(r)) ? 1 : 0);
  const patterns = references.map((source) => {
    try {
      return new RegExp(source);
    } catch (error) {
      throw new UsageError(
        `task ${task.id}: the reference is not a regular expression: ${(error as Error).message}`,
      );
    }
  });
  return (reply) => (patterns.some((p) => p.test(reply)) ? 1 : 0);
}
