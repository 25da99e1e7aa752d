// The history store: history/history.db, folded from the journal files before every use (fold.ts),
// kept within its bounds (prune.ts). Every use — fold, read, prune — holds the history directory's
// owner file (fs/owner-lock.ts), so two aip processes never have the database open at once,
// whatever the SQLite binding: the WebAssembly build has no lock of the operating system's, and its
// own lock directory, which a killed process leaves behind, is cleared by whoever holds the owner file.
// A process that finds it held waits (the other's fold or read takes milliseconds), up to WAIT_MS.

import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { ensurePrivateDir } from '../fs/private-dir.js';
import { foldJournal } from './fold.js';
import { HISTORY_DB, historyDir, JOURNAL_DIR } from './paths.js';
import { enforceBounds } from './prune.js';
import { openHistoryDb } from './schema.js';
import { claimForShortUse, type SqliteDriver } from './sqlite.js';

type Env = Record<string, string | undefined>;

/**
 * At most this many invocations are kept: after a fold, the oldest (by id, the order they were first
 * folded in) go, with their rows. About 100 bytes an invocation and a few per answer's usage: tens of
 * MB at most, without bodies.
 */
export const MAX_INVOCATIONS = 100_000;
/**
 * At most this many bytes of bodies (requests and answers, JSON) are kept: past it, the oldest bodies
 * go first (their invocations, usage and the rest stay).
 */
export const MAX_BODY_BYTES = 256 * 1024 * 1024;
/** How long a use waits for another process's use to end before it gives up. */
export const WAIT_MS = 10_000;

export interface StoreOptions {
  /** Bounds other than the documented ones: for tests. */
  maxInvocations?: number;
  maxBodyBytes?: number;
  waitMs?: number;
}

export interface HistoryStore {
  db: SqliteDriver;
  dir: string;
  file: string;
}

export function historyDbFile(env: Env): string {
  return join(historyDir(env), HISTORY_DB);
}

/** Whether there is anything to read: a database, or a journal file to fold into one. */
function anythingKept(dir: string): boolean {
  if (existsSync(join(dir, HISTORY_DB))) return true;
  try {
    return readdirSync(join(dir, JOURNAL_DIR)).some((name) => name.endsWith('.jsonl'));
  } catch {
    return false;
  }
}

/**
 * Runs `work` over the store, folded and within bounds, holding the history directory throughout;
 * undefined (and nothing made) when there is no history at all and `create` is not asked.
 */
export async function withHistoryStore<T>(
  env: Env,
  work: (store: HistoryStore) => T,
  options: StoreOptions & { create?: boolean } = {},
): Promise<T | undefined> {
  const dir = historyDir(env);
  if (!options.create && !anythingKept(dir)) return undefined;
  ensurePrivateDir(dir);
  const { binding, lock } = await claimForShortUse(dir, env, {
    waitMs: options.waitMs ?? WAIT_MS,
    what: 'the history',
  });
  const file = join(dir, HISTORY_DB);
  let db: SqliteDriver;
  try {
    db = openHistoryDb(binding, file);
  } catch (error) {
    // A record from another machine that was taken over is put back: the operating system's lock has
    // just said that aip may well be running there (as the emulator does, durable/sqlite.ts).
    lock.giveBack();
    throw error;
  }
  try {
    try {
      const folded = foldJournal(db, join(dir, JOURNAL_DIR));
      if (folded > 0)
        enforceBounds(db, {
          maxInvocations: options.maxInvocations ?? MAX_INVOCATIONS,
          maxBodyBytes: options.maxBodyBytes ?? MAX_BODY_BYTES,
        });
      return work({ db, dir, file });
    } finally {
      db.close();
    }
  } finally {
    lock.release();
  }
}
