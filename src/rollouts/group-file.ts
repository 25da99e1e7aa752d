// The groups file of a rollout run: JSON Lines, one trajectory group per line, appended as each group
// is complete (its K samples sampled and scored), so that a run stopped part-way keeps what it did.
// Each line is written with one write and synced before the next group counts as done. With --resume
// the file is read back: the tasks it holds are not sampled again, and a last line left unfinished by
// a kill (no newline, or not JSON) is cut off, as it was never a whole group.

import {
  closeSync,
  existsSync,
  fsyncSync,
  openSync,
  readFileSync,
  statSync,
  truncateSync,
  writeSync,
} from 'node:fs';
import { UsageError } from '../errors/errors.js';
import { writeError } from '../fs/write-error.js';
import { isObject } from '../lib/json.js';

/** What aip puts in each group's metadata, to know it again on --resume. */
export interface GroupOrigin {
  task_id: string;
  rollout_seed: number;
  rollout_model: string;
  /** The request parameters (temperature, max_tokens, -o) and the reward as given. */
  rollout_params?: Record<string, unknown>;
  rollout_reward?: string;
}

export interface GroupFile {
  path: string;
  /** The groups already in the file, by task id. */
  done: Map<string, Record<string, unknown>>;
  append(group: Record<string, unknown>): void;
  close(): void;
}

function originOf(group: unknown): GroupOrigin | undefined {
  const metadata = isObject(group) ? group.metadata : undefined;
  if (!isObject(metadata) || typeof metadata.task_id !== 'string') return undefined;
  return metadata as unknown as GroupOrigin;
}

/** The whole groups of an existing file, and where the last whole line ends. */
function readBack(path: string): { groups: unknown[]; wholeBytes: number } {
  const bytes = readFileSync(path);
  const groups: unknown[] = [];
  let start = 0;
  let line = 0;
  while (start < bytes.length) {
    const end = bytes.indexOf(0x0a, start);
    line++;
    if (end < 0) break; // unfinished: cut off below
    const text = bytes.subarray(start, end).toString('utf8');
    let group: unknown;
    try {
      group = JSON.parse(text);
    } catch {
      // Only the last line can be one a kill interrupted; anywhere else the file is not a run's.
      if (bytes.indexOf(0x0a, end + 1) >= 0 || end + 1 < bytes.length)
        throw new UsageError(
          `${path}:${line}: not a JSON line: is this the groups file of an aip rollouts run?`,
        );
      return { groups, wholeBytes: start };
    }
    if (!originOf(group))
      throw new UsageError(
        `${path}:${line}: a group without aip's metadata.task_id: --resume continues only a file aip rollouts wrote`,
      );
    groups.push(group);
    start = end + 1;
  }
  return { groups, wholeBytes: start };
}

/** What a groups file already holds, read before anything is written to it. */
export interface PreviousGroups {
  path: string;
  /** Continue it (--resume); else it is made new, or emptied (--force). */
  resume: boolean;
  /** The groups already in the file, by task id. */
  done: Map<string, Record<string, unknown>>;
  /** Where its whole lines end, and its size: more is an unfinished last line, to be cut off. */
  wholeBytes: number;
  size: number;
}

/**
 * Checks a groups file and reads what it holds, changing nothing: a command checks the rest of its
 * input against it (and everything else) before openGroupFile truncates or creates anything, so that
 * a mistake on the command line never costs a file.
 */
export function readGroupFile(path: string, options: { resume: boolean; force: boolean }): PreviousGroups {
  const exists = existsSync(path);
  if (exists && !options.resume && !options.force)
    throw new UsageError(`${path} exists: --resume continues it, --force starts it again`);
  const done = new Map<string, Record<string, unknown>>();
  if (!exists || !options.resume) return { path, resume: false, done, wholeBytes: 0, size: 0 };
  let read: ReturnType<typeof readBack>;
  let size: number;
  try {
    read = readBack(path);
    size = statSync(path).size;
  } catch (error) {
    if (error instanceof UsageError) throw error;
    throw writeError(path, error, { outcome: 'nothing was sampled' });
  }
  for (const group of read.groups) done.set(originOf(group)!.task_id, group as Record<string, unknown>);
  return { path, resume: true, done, wholeBytes: read.wholeBytes, size };
}

/**
 * Opens the file read before: an unfinished last line cut off (and said, through `warn`), or the
 * file made (or emptied).
 */
export function openGroupFile(previous: PreviousGroups, warn: (message: string) => void): GroupFile {
  const { path, done } = previous;
  const cutBytes = previous.resume ? previous.size - previous.wholeBytes : 0;
  let fd: number;
  try {
    if (previous.resume) {
      if (cutBytes > 0) truncateSync(path, previous.wholeBytes);
      fd = openSync(path, 'a');
    } else fd = openSync(path, 'w', 0o644);
  } catch (error) {
    throw writeError(path, error, { outcome: 'nothing was sampled' });
  }
  if (cutBytes > 0)
    warn(`${path}: its last line was unfinished (${cutBytes} bytes, a stopped run's) and was cut off`);
  return {
    path,
    done,
    append(group) {
      try {
        writeSync(fd, `${JSON.stringify(group)}\n`);
        fsyncSync(fd);
      } catch (error) {
        throw writeError(path, error, {
          exit: 'error',
          outcome: `the groups before this one are in ${path}; --resume continues from them`,
        });
      }
    },
    close() {
      closeSync(fd);
    },
  };
}

export function groupOrigin(group: unknown): GroupOrigin | undefined {
  return originOf(group);
}

/** The samples of a group written before: its trajectories and its failures. */
function samplesIn(group: Record<string, unknown> | undefined): number | undefined {
  if (!group) return undefined;
  const count = (list: unknown) => (Array.isArray(list) ? list.length : 0);
  return count(group.trajectories) + count(group.exceptions);
}

/** What a resumed file fixes of the run that carries it on: its model, seed and group size. */
export interface ResumeTerms {
  /** The first group's origin; none for a new (or emptied) file. */
  origin: GroupOrigin | undefined;
  /** Its groups' size, which a resumed run keeps. */
  groupSize: number | undefined;
  /** The groups already written. */
  groups: number;
}

/**
 * A resumed file keeps its seed and model, and its group size: given again, each must match, left
 * out, each is the file's. Checked before anything is sampled or written.
 */
export function resumeTerms(
  previous: PreviousGroups | undefined,
  given: { model: string; groupSize?: number; seed?: number },
): ResumeTerms {
  const before = previous ? [...previous.done.values()] : [];
  const origin = before[0] ? groupOrigin(before[0]) : undefined;
  const file = previous?.path;
  if (origin && origin.rollout_model !== given.model)
    throw new UsageError(
      `${file} was sampled from ${origin.rollout_model}, not ${given.model}: give that model, or --force to start again`,
    );
  const groupSize = samplesIn(before[0]);
  if (groupSize !== undefined && given.groupSize !== undefined && groupSize !== given.groupSize)
    throw new UsageError(`${file} has groups of ${groupSize} samples: resume it with -K ${groupSize}`);
  if (origin && given.seed !== undefined && given.seed !== origin.rollout_seed)
    throw new UsageError(`${file} was sampled with --seed ${origin.rollout_seed}: resume it with that seed`);
  return { origin, groupSize, groups: before.length };
}

/**
 * A resumed file goes on as it was sampled and scored: other request parameters or another reward
 * would mix two runs in one file, with nothing in it to tell them apart.
 */
export function sameSampling(
  file: string,
  origin: GroupOrigin,
  plan: { params: Record<string, unknown>; reward: string },
): void {
  // By name, whatever order the flags came in.
  const stable = (value: Record<string, unknown>) => JSON.stringify(Object.entries(value).sort());
  const params = JSON.stringify(plan.params);
  if (origin.rollout_params !== undefined && stable(origin.rollout_params) !== stable(plan.params))
    throw new UsageError(
      `${file} was sampled with the request parameters ${JSON.stringify(origin.rollout_params)}, not ${params}: give the same --temperature, --max-tokens and -o, or --force to start again`,
    );
  if (origin.rollout_reward !== undefined && origin.rollout_reward !== plan.reward)
    throw new UsageError(
      `${file} was scored with ${origin.rollout_reward}, not ${plan.reward}: give the same reward, or --force to start again`,
    );
}
