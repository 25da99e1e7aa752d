// The groups file of a rollout run: JSON Lines, one trajectory group per line, appended as each group
// is complete (its K samples sampled and scored), so that a run stopped part-way keeps what it did.
// Each line is written with one write and synced before the next group counts as done. With --resume
// the file is read back: the tasks it holds are not sampled again, and a last line left unfinished by
// a kill (no newline, or not JSON) is cut off, as it was never a whole group.

import { closeSync, existsSync, fsyncSync, ftruncateSync, openSync, readFileSync, writeSync } from 'node:fs';
import { UsageError } from '../errors/errors.js';
import { writeError } from '../fs/write-error.js';
import { isObject } from '../lib/json.js';

/** What aip puts in each group's metadata, to know it again on --resume. */
export interface GroupOrigin {
  task_id: string;
  rollout_seed: number;
  rollout_model: string;
}

export interface GroupFile {
  path: string;
  /** The groups already in the file, by task id. */
  done: Map<string, Record<string, unknown>>;
  /** Bytes of an unfinished last line that were cut off (0 when none). */
  cutBytes: number;
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

export function openGroupFile(path: string, options: { resume: boolean; force: boolean }): GroupFile {
  const exists = existsSync(path);
  if (exists && !options.resume && !options.force)
    throw new UsageError(`${path} exists: --resume continues it, --force starts it again`);
  const done = new Map<string, Record<string, unknown>>();
  let cutBytes = 0;
  let fd: number;
  try {
    if (exists && options.resume) {
      const { groups, wholeBytes } = readBack(path);
      for (const group of groups) done.set(originOf(group)!.task_id, group as Record<string, unknown>);
      fd = openSync(path, 'r+');
      const size = readFileSync(path).length;
      cutBytes = size - wholeBytes;
      if (cutBytes > 0) ftruncateSync(fd, wholeBytes);
      closeSync(fd);
      fd = openSync(path, 'a');
    } else fd = openSync(path, 'w', 0o644);
  } catch (error) {
    if (error instanceof UsageError) throw error;
    throw writeError(path, error, { outcome: 'nothing was sampled' });
  }
  return {
    path,
    done,
    cutBytes,
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
