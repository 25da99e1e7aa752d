// The journal files a store folds (one a writing process, named `<epochMs>-<pid>-…`) and the offsets
// it keeps of them in its `journal_offsets (file, offset)` table, for the history and the trace store
// alike: listed oldest first; once folded and finished, removed, then their offsets (a kill between
// the two leaves a stale offset); and the offsets of files no longer there cleared.

import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { removeFile } from '../../fs/remove-file.js';
import type { SqliteDriver } from './sqlite-driver.js';

/** The names in `dir` that `pattern` takes, oldest first (by their leading epoch milliseconds). */
export function journalFiles(dir: string, pattern: RegExp): string[] {
  let names: string[];
  try {
    names = readdirSync(dir).filter((name) => pattern.test(name));
  } catch {
    return [];
  }
  return names.sort((a, b) => Number(a.split('-')[0]) - Number(b.split('-')[0]) || a.localeCompare(b));
}

function forgetOffsets(db: SqliteDriver, names: readonly string[]): void {
  if (names.length === 0) return;
  const forget = db.prepare('DELETE FROM journal_offsets WHERE file = ?');
  db.transaction(() => {
    for (const name of names) forget.run(name);
  });
}

/** Removes folded, finished files (their rows committed), then their offsets. */
export function removeFolded(db: SqliteDriver, dir: string, names: readonly string[]): void {
  const removed = names.filter((name) => {
    try {
      removeFile(join(dir, name));
      return true;
    } catch {
      // Not removable (a read-only directory): its offset stays, so it is not folded again.
      return false;
    }
  });
  forgetOffsets(db, removed);
}

/** Clears the offsets of files not among `present` (deleted by a fold killed before it cleared them). */
export function forgetStaleOffsets(db: SqliteDriver, present: readonly string[]): void {
  const there = new Set(present);
  const stale = db
    .prepare('SELECT file FROM journal_offsets')
    .all()
    .map((row) => String(row.file))
    .filter((file) => !there.has(file));
  forgetOffsets(db, stale);
}
