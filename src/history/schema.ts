// The history database (history/history.db): its tables, and how it is opened. One row an invocation
// (its `id` is the short number users type, `run` the key the journal names it by), and beside it what
// it noted, created and used, and the bodies when kept; journal_offsets says how far each journal file
// has been folded, written in the same transaction as the rows it folded (fold.ts).
//
// Opened as the emulator opens its own (emulator/durable/sqlite.ts), for the same reasons: exclusive
// locking mode before anything is read (the WebAssembly build has no shared memory, so WAL needs it),
// WAL with synchronous=NORMAL (a commit reaches the operating system before it returns: a process
// killed at any moment loses nothing committed), aip's mark in the header. Its format is
// PRAGMA user_version: a database written by a newer aip is refused, never rewritten.

import { CliError } from '../errors/errors.js';
import { createPrivateFile } from '../fs/private-file.js';
import { sqliteHeaderOf } from '../lib/sqlite/header.js';
import { type SqliteBinding, type SqliteDriver, withTransactions } from './sqlite.js';

/** This aip's format of the database; a newer one's is refused (PRAGMA user_version). */
export const HISTORY_FORMAT = 1;
/** aip's mark in the header (SQLite's application_id): "AIPH". */
export const HISTORY_APPLICATION_ID = 0x41495048;

const TABLES = `
CREATE TABLE IF NOT EXISTS invocations (
  id INTEGER PRIMARY KEY,
  run TEXT NOT NULL UNIQUE,
  at TEXT NOT NULL,
  command TEXT NOT NULL,
  argv TEXT NOT NULL,
  profile TEXT NOT NULL,
  training_url TEXT, inference_url TEXT, trace_url TEXT,
  project TEXT, cwd TEXT, version TEXT, pid INTEGER, host TEXT,
  exit INTEGER, error TEXT, duration_ms INTEGER, ended_at TEXT);
CREATE INDEX IF NOT EXISTS invocations_at ON invocations (at);
CREATE INDEX IF NOT EXISTS invocations_ended ON invocations (ended_at);
CREATE TABLE IF NOT EXISTS notes (
  invocation INTEGER NOT NULL, at TEXT NOT NULL, model TEXT, job TEXT, ref TEXT);
CREATE INDEX IF NOT EXISTS notes_invocation ON notes (invocation);
CREATE TABLE IF NOT EXISTS usage (
  invocation INTEGER NOT NULL, at TEXT NOT NULL, api TEXT NOT NULL, model TEXT NOT NULL,
  purpose TEXT NOT NULL, prompt_tokens INTEGER NOT NULL, completion_tokens INTEGER NOT NULL,
  samples INTEGER NOT NULL, job TEXT);
CREATE INDEX IF NOT EXISTS usage_invocation ON usage (invocation);
CREATE INDEX IF NOT EXISTS usage_at ON usage (at);
CREATE TABLE IF NOT EXISTS created (
  invocation INTEGER NOT NULL, at TEXT NOT NULL, what TEXT NOT NULL, object_id TEXT NOT NULL,
  name TEXT, kind TEXT, base_url TEXT NOT NULL, profile TEXT NOT NULL,
  UNIQUE (invocation, what, object_id));
CREATE TABLE IF NOT EXISTS bodies (
  invocation INTEGER NOT NULL, at TEXT NOT NULL, api TEXT NOT NULL, model TEXT NOT NULL,
  purpose TEXT NOT NULL, request TEXT NOT NULL, response TEXT NOT NULL, bytes INTEGER NOT NULL);
CREATE INDEX IF NOT EXISTS bodies_invocation ON bodies (invocation);
CREATE TABLE IF NOT EXISTS journal_offsets (
  file TEXT PRIMARY KEY, offset INTEGER NOT NULL, last_kind TEXT, run TEXT) WITHOUT ROWID;
`;

/** The tables an invocation's rows are kept in (what goes with it when it goes). */
export const ROW_TABLES = ['notes', 'usage', 'created', 'bodies'] as const;

function refuse(file: string, why: string): CliError {
  return new CliError(`the history database ${file} ${why}; it is left as it is`, {
    hint: 'move it away to start a new history',
  });
}

function newerFormat(file: string, version: number): CliError {
  return refuse(
    file,
    `was written by a newer aip (format ${version}; this one reads ${HISTORY_FORMAT}): use that aip`,
  );
}

/**
 * Opens (making) the database: the caller holds the history directory (store.ts). Refuses a file that
 * is not aip's history or that a newer aip wrote, with its bytes untouched.
 */
export function openHistoryDb(binding: SqliteBinding, file: string): SqliteDriver {
  const header = sqliteHeaderOf(file);
  const mark = header?.mark;
  if (mark === -1) throw refuse(file, 'is not a SQLite database');
  if (header && header.version > HISTORY_FORMAT) throw newerFormat(file, header.version);
  if (mark !== undefined && mark !== HISTORY_APPLICATION_ID)
    throw refuse(file, `is not aip's history (application id 0x${(mark >>> 0).toString(16)})`);
  createPrivateFile(file);
  const db = withTransactions(binding.open(file));
  try {
    db.exec('PRAGMA locking_mode = EXCLUSIVE');
    const version = Number(db.prepare('PRAGMA user_version').get()?.user_version ?? 0);
    // Again as SQLite reads it: a format changed in the WAL not yet copied into the file.
    if (version > HISTORY_FORMAT) throw newerFormat(file, version);
    if (mark === undefined) {
      db.exec(`PRAGMA application_id = ${HISTORY_APPLICATION_ID}`);
      // Before any table: pages freed by a prune go back to the file system (prune.ts).
      db.exec('PRAGMA auto_vacuum = INCREMENTAL');
    }
    const mode = db.prepare('PRAGMA journal_mode = WAL').get()?.journal_mode;
    if (mode !== 'wal') throw new Error(`its journal cannot be WAL (${String(mode)})`);
    db.exec('PRAGMA synchronous = NORMAL');
    if (version < HISTORY_FORMAT) {
      db.transaction(() => {
        db.exec(TABLES);
        db.exec(`PRAGMA user_version = ${HISTORY_FORMAT}`);
      });
    }
    return db;
  } catch (error) {
    db.close();
    if (error instanceof CliError) throw error;
    throw refuse(file, `cannot be opened (${(error as Error).message})`);
  }
}
