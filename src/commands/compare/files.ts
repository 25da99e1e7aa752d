// Reading the files `aip compare` is given: bounded in size (checked on the open file, so a file that
// grows meanwhile cannot get past it), regular files only (not a FIFO or a device, which could block or
// never end), JSON parsed with a `file: problem` message (exit 2) for anything else.

import { UsageError } from '../../errors/errors.js';
import { readBounded } from '../../fs/read-bounded.js';

const MIB = 1024 * 1024;
/** A train rl run's run.json. */
export const MAX_RUN_FILE = 16 * MIB;
/** An eval result file (aip eval --json). */
export const MAX_EVAL_FILE = 64 * MIB;
/** One iteration's groups file, read only for an iteration whose totals run.json does not have yet. */
export const MAX_GROUPS_FILE = 256 * MIB;

/** The file's JSON; a UsageError `file: not valid JSON (…)` otherwise. */
export function readJsonFile(file: string, max: number): unknown {
  const text = readBounded(file, max).toString('utf8');
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new UsageError(`${file}: not valid JSON (${(error as Error).message.split('\n')[0]})`);
  }
}
