// The tee's store: traces/traces.db, folded from the journal before every read (fold.ts) and kept
// within its bounds (bound.ts). As the history's store (history/store.ts): every use holds the traces
// directory's owner file (fs/owner-lock.ts), so two aip processes never have the database open at
// once whatever the SQLite binding, and the writer (`traces serve --tee`) never opens it at all. A
// reader that finds it held waits (a fold takes milliseconds) up to WAIT_MS.

import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { ensurePrivateDir } from '../../fs/private-dir.js';
import { claimForShortUse } from '../../lib/sqlite/short-use.js';
import type { SqliteDriver } from '../../lib/sqlite/sqlite-driver.js';
import { type Bounds, DEFAULT_BOUNDS, enforceBounds } from './bound.js';
import { foldTraceJournal } from './fold.js';
import { JOURNAL_DIR, JOURNAL_NAME, TRACES_DB, tracesDir } from './paths.js';
import { openTracesDb } from './schema.js';

type Env = Record<string, string | undefined>;

/** How long a reader waits for another's fold or read to end. */
export const WAIT_MS = 10_000;

export interface TraceStoreOptions {
  /** Bounds other than the documented ones: for tests. */
  bounds?: Bounds;
  waitMs?: number;
}

export function tracesDbFile(env: Env): string {
  return join(tracesDir(env), TRACES_DB);
}

/** Whether there is anything to read: a database, or a journal file to fold into one. */
function anythingKept(dir: string): boolean {
  if (existsSync(join(dir, TRACES_DB))) return true;
  try {
    return readdirSync(join(dir, JOURNAL_DIR)).some((name) => JOURNAL_NAME.test(name));
  } catch {
    return false;
  }
}

/**
 * Runs `work` over the store, folded and within bounds, holding the traces directory throughout;
 * undefined (and nothing made) when nothing was ever kept.
 */
export async function withTraceStore<T>(
  env: Env,
  work: (db: SqliteDriver) => T,
  options: TraceStoreOptions = {},
): Promise<T | undefined> {
  const dir = tracesDir(env);
  if (!anythingKept(dir)) return undefined;
  ensurePrivateDir(dir);
  const { binding, lock } = await claimForShortUse(dir, env, {
    waitMs: options.waitMs ?? WAIT_MS,
    what: 'the traces store',
  });
  let db: SqliteDriver;
  try {
    db = openTracesDb(binding, join(dir, TRACES_DB));
  } catch (error) {
    lock.giveBack();
    throw error;
  }
  try {
    try {
      if (foldTraceJournal(db, join(dir, JOURNAL_DIR)) > 0)
        enforceBounds(db, options.bounds ?? DEFAULT_BOUNDS);
      return work(db);
    } finally {
      db.close();
    }
  } finally {
    lock.release();
  }
}
