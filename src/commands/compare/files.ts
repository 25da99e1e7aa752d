// Reading the files `aip compare` is given: bounded in size (checked on the open file, so a file that
// grows meanwhile cannot get past it), regular files only (not a FIFO or a device, which could block or
// never end), JSON parsed with a `file: problem` message (exit 2) for anything else.

import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { UsageError } from '../../errors/errors.js';

const MIB = 1024 * 1024;
/** A train rl run's run.json. */
export const MAX_RUN_FILE = 16 * MIB;
/** An eval result file (aip eval --json). */
export const MAX_EVAL_FILE = 64 * MIB;
/** One iteration's groups file, read only for an iteration whose totals run.json does not have yet. */
export const MAX_GROUPS_FILE = 256 * MIB;

function describe(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ENOENT') return 'no such file';
  if (code === 'EACCES' || code === 'EPERM') return 'permission denied';
  if (code === 'EISDIR') return 'a directory, not a file';
  return code ?? (error as Error).message;
}

/** The file's bytes; a UsageError naming the file when it cannot be read, is not a file or is too big. */
export function readBounded(file: string, max: number): Buffer {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch (error) {
    throw new UsageError(`${file}: cannot read it (${describe(error)})`);
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) throw new UsageError(`${file}: not a regular file`);
    if (stat.size > max)
      throw new UsageError(
        `${file}: ${(stat.size / MIB).toFixed(1)} MiB, more than the ${max / MIB} MiB read from such a file`,
      );
    const buffer = Buffer.alloc(stat.size);
    let at = 0;
    while (at < buffer.length) {
      const n = readSync(fd, buffer, at, buffer.length - at, at);
      if (n === 0) break;
      at += n;
    }
    return buffer.subarray(0, at);
  } catch (error) {
    if (error instanceof UsageError) throw error;
    throw new UsageError(`${file}: cannot read it (${describe(error)})`);
  } finally {
    closeSync(fd);
  }
}

/** The file's JSON; a UsageError `file: not valid JSON (…)` otherwise. */
export function readJsonFile(file: string, max: number): unknown {
  const text = readBounded(file, max).toString('utf8');
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new UsageError(`${file}: not valid JSON (${(error as Error).message.split('\n')[0]})`);
  }
}
