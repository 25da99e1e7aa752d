// What an existing SQLite file says of itself in its 100-byte header, read without opening it in
// SQLite: the history and the trace store refuse a file that is not theirs, or a newer aip's, before
// anything could write to it.

import { closeSync, existsSync, openSync, readSync, statSync } from 'node:fs';

/**
 * The mark (application_id) and format (user_version) in the file's header: undefined for a new
 * (absent or empty) file; a mark of -1 for a file that is not SQLite.
 */
export function sqliteHeaderOf(file: string): { mark: number; version: number } | undefined {
  if (!existsSync(file) || statSync(file).size === 0) return undefined;
  const fd = openSync(file, 'r');
  try {
    const header = Buffer.alloc(100);
    const n = readSync(fd, header, 0, 100, 0);
    if (n < 100 || header.toString('latin1', 0, 16) !== 'SQLite format 3\0') return { mark: -1, version: 0 };
    return { mark: header.readInt32BE(68), version: header.readInt32BE(60) };
  } finally {
    closeSync(fd);
  }
}
