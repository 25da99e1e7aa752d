// The shards of a rollout run (`aip rollouts --shard I/N`, each a groups file) joined into the file an
// unsharded run with the same seed writes. Each sample's seed depends only on the run's seed, the task
// and the sample (run.ts sampleSeed), so a shard's groups are the unsharded run's groups of its tasks;
// merging checks that the files are such shards and puts the groups in one order. An unsharded run
// writes its groups as they complete, in an order that depends on timing (but with --concurrency 1):
// the order written here, the tasks file's, is the canonical one, and "the same file" means the same
// groups in it.
//
// Pure: the files' text in, the merged text out, or a usage error that names the file and the line.
// Nothing is written unless every check passes.

import { UsageError } from '../errors/errors.js';
import { isObject } from '../lib/json.js';

export interface ShardText {
  path: string;
  text: string;
}

/** How a group was sampled, as its metadata says: groups of one run agree on all of it. */
interface Sampling {
  seed: number;
  model: string;
  params: string;
  reward: string | undefined;
  groupSize: number;
}

interface Place {
  path: string;
  line: number;
}

const at = (place: Place) => `${place.path}:${place.line}`;

/** By name, whatever order the flags came in (as group-file.ts sameSampling compares them). */
const stable = (value: unknown) =>
  isObject(value) ? JSON.stringify(Object.entries(value).sort()) : JSON.stringify(value ?? null);

function samplingOf(group: Record<string, unknown>, place: Place): { taskId: string; sampling: Sampling } {
  const metadata = group.metadata;
  if (
    !isObject(metadata) ||
    typeof metadata.task_id !== 'string' ||
    typeof metadata.rollout_seed !== 'number' ||
    typeof metadata.rollout_model !== 'string'
  )
    throw new UsageError(
      `${at(place)}: a group without aip's metadata (task_id, rollout_seed, rollout_model): merge joins only groups files aip rollouts wrote`,
    );
  const count = (list: unknown) => (Array.isArray(list) ? list.length : 0);
  return {
    taskId: metadata.task_id,
    sampling: {
      seed: metadata.rollout_seed,
      model: metadata.rollout_model,
      params: stable(metadata.rollout_params),
      reward: typeof metadata.rollout_reward === 'string' ? metadata.rollout_reward : undefined,
      groupSize: count(group.trajectories) + count(group.exceptions),
    },
  };
}

/** What differs between two samplings, in words; undefined when they agree. */
function difference(a: Sampling, b: Sampling): string | undefined {
  if (a.seed !== b.seed) return `--seed ${a.seed}, not ${b.seed}`;
  if (a.model !== b.model) return `the model ${a.model}, not ${b.model}`;
  if (a.params !== b.params) return `the request parameters ${a.params}, not ${b.params}`;
  if (a.reward !== b.reward)
    return `the reward ${a.reward ?? '(none recorded)'}, not ${b.reward ?? '(none recorded)'}`;
  if (a.groupSize !== b.groupSize) return `groups of ${a.groupSize} samples, not ${b.groupSize}`;
  return undefined;
}

export interface Merged {
  /** The merged file's text: a group per line, in the tasks' order. */
  text: string;
  groups: number;
  seed: number;
  model: string;
}

/**
 * The shards joined, the groups in the order of `taskIds` (the tasks file's). Refused, naming the
 * place: a line that is not a whole group of aip's, groups sampled differently (seed, model, request
 * parameters, reward, group size), a task twice, a task not in `taskIds`, and a task of `taskIds` in
 * no file (a shard missing, or stopped before its end).
 */
export function mergeShards(
  shards: readonly ShardText[],
  taskIds: readonly string[],
  tasksPath: string,
): Merged {
  const known = new Set(taskIds);
  const lines = new Map<string, { text: string; place: Place }>();
  let first: { sampling: Sampling; place: Place } | undefined;
  for (const { path, text } of shards) {
    const rows = text.split('\n');
    // A file ends with a newline, or is empty: a last line without one was cut short by a kill.
    const unfinished = rows.pop();
    if (unfinished !== '')
      throw new UsageError(
        `${path}:${rows.length + 1}: an unfinished last line: that shard was stopped before its end; carry it on with aip rollouts --resume, then merge`,
      );
    rows.forEach((row, i) => {
      const place = { path, line: i + 1 };
      let group: unknown;
      try {
        group = JSON.parse(row);
      } catch {
        throw new UsageError(`${at(place)}: not a JSON line: is this a groups file of aip rollouts?`);
      }
      if (!isObject(group))
        throw new UsageError(`${at(place)}: not a trajectory group: is this a groups file of aip rollouts?`);
      const { taskId, sampling } = samplingOf(group, place);
      if (!first) first = { sampling, place };
      const differs = difference(sampling, first.sampling);
      if (differs)
        throw new UsageError(
          `${at(place)} was sampled with ${differs} (as ${at(first.place)} was): the shards of one run share its seed, model, request parameters, reward and group size`,
        );
      const earlier = lines.get(taskId);
      if (earlier)
        throw new UsageError(
          `task ${taskId} is in ${at(earlier.place)} and in ${at(place)}: a task is in one shard only (the same file given twice, or shards of different splits?)`,
        );
      if (!known.has(taskId))
        throw new UsageError(
          `${at(place)}: task ${taskId} is not in ${tasksPath}: were the shards sampled from another tasks file?`,
        );
      lines.set(taskId, { text: row, place });
    });
  }
  const missing = taskIds.filter((id) => !lines.has(id));
  if (missing.length > 0) {
    const shown = missing.slice(0, 5).join(', ') + (missing.length > 5 ? ', …' : '');
    throw new UsageError(
      `${missing.length} of the ${taskIds.length} tasks of ${tasksPath} ${missing.length === 1 ? 'is' : 'are'} in none of the files (${shown}): is a shard missing, or one stopped before its end (aip rollouts --resume carries it on)?`,
    );
  }
  const ordered = taskIds.map((id) => lines.get(id)!.text);
  return {
    text: ordered.map((line) => `${line}\n`).join(''),
    groups: ordered.length,
    seed: first!.sampling.seed,
    model: first!.sampling.model,
  };
}
