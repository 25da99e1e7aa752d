// What leaves the store: the oldest invocations past MAX_INVOCATIONS and the oldest bodies past
// MAX_BODY_BYTES after each fold (store.ts), and `aip history prune --older-than`. An invocation goes
// with all its rows; a body goes alone. The space freed is given back to the file system
// (auto_vacuum incremental, schema.ts), so the file shrinks as the history does.

import { ROW_TABLES } from './schema.js';
import type { SqliteDriver } from './sqlite.js';

export interface Bounds {
  maxInvocations: number;
  maxBodyBytes: number;
}

/** Removes the invocations `where` selects (an SQL condition on invocations), with their rows; how many. */
function removeInvocations(db: SqliteDriver, where: string, ...params: (string | number)[]): number {
  const n = Number(db.prepare(`SELECT count(*) AS n FROM invocations WHERE ${where}`).get(...params)?.n ?? 0);
  if (n === 0) return 0;
  db.transaction(() => {
    for (const table of ROW_TABLES)
      db.prepare(`DELETE FROM ${table} WHERE invocation IN (SELECT id FROM invocations WHERE ${where})`).run(
        ...params,
      );
    db.prepare(`DELETE FROM invocations WHERE ${where}`).run(...params);
  });
  return n;
}

/** Drops the oldest bodies until at most `max` bytes of them are left; how many went. */
function boundBodies(db: SqliteDriver, max: number): number {
  const total = Number(db.prepare('SELECT coalesce(sum(bytes), 0) AS n FROM bodies').get()?.n ?? 0);
  if (total <= max) return 0;
  let over = total - max;
  let last = 0;
  let dropped = 0;
  for (const row of db.prepare('SELECT rowid AS r, bytes FROM bodies ORDER BY rowid').all()) {
    if (over <= 0) break;
    over -= Number(row.bytes);
    last = Number(row.r);
    dropped++;
  }
  db.transaction(() => db.prepare('DELETE FROM bodies WHERE rowid <= ?').run(last));
  return dropped;
}

function giveBackSpace(db: SqliteDriver): void {
  db.exec('PRAGMA incremental_vacuum');
}

/** Keeps the store within its bounds: the newest `maxInvocations`, the newest bodies up to `maxBodyBytes`. */
export function enforceBounds(db: SqliteDriver, bounds: Bounds): void {
  const count = Number(db.prepare('SELECT count(*) AS n FROM invocations').get()?.n ?? 0);
  let removed = 0;
  if (count > bounds.maxInvocations) {
    const keep = db
      .prepare('SELECT id FROM invocations ORDER BY id DESC LIMIT 1 OFFSET ?')
      .get(Math.max(0, bounds.maxInvocations - 1));
    const oldestKept = bounds.maxInvocations <= 0 ? Number.MAX_SAFE_INTEGER : Number(keep?.id ?? 0);
    removed += removeInvocations(db, 'id < ?', oldestKept);
  }
  removed += boundBodies(db, bounds.maxBodyBytes);
  if (removed > 0) giveBackSpace(db);
}

/** `aip history prune --older-than`: the invocations that ended before `cutoff` (ISO), with their rows. */
export function pruneEndedBefore(db: SqliteDriver, cutoff: string): number {
  const n = removeInvocations(db, 'ended_at IS NOT NULL AND ended_at < ?', cutoff);
  if (n > 0) giveBackSpace(db);
  return n;
}
