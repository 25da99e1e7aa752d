// traces.db: the spans the tee kept, one row a span (rows.ts), unique by (trace id, span id) so that a
// span sent twice (an SDK's retry) is kept once; journal_offsets says how far each journal file has
// been folded, written in the same transaction as the rows it folded (fold.ts).
//
// Opened as the history's database is (history/schema.ts), for the same reasons: exclusive locking
// before anything is read (the WebAssembly build has no shared memory, so WAL needs it), WAL with
// synchronous=NORMAL, aip's mark in the header, and a format (user_version) a newer aip's file is
// refused by, never rewritten.

import { CliError } from '../../errors/errors.js';
import { createPrivateFile } from '../../fs/private-file.js';
import { sqliteHeaderOf } from '../../lib/sqlite/header.js';
import { type SqliteBinding, type SqliteDriver, withTransactions } from '../../lib/sqlite/sqlite-driver.js';

export const TRACES_FORMAT = 1;
/** aip's mark in the header (SQLite's application_id): "AIPT". */
export const TRACES_APPLICATION_ID = 0x41495054;

const TABLES = `
CREATE TABLE IF NOT EXISTS spans (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  trace_id TEXT NOT NULL, span_id TEXT NOT NULL, parent_id TEXT,
  name TEXT NOT NULL, kind INTEGER NOT NULL,
  start_ns TEXT NOT NULL, end_ns TEXT NOT NULL, start_ms INTEGER NOT NULL, duration_ns INTEGER NOT NULL,
  status_code INTEGER NOT NULL, status_message TEXT,
  project TEXT, service TEXT, request_model TEXT, response_model TEXT,
  input_tokens INTEGER, output_tokens INTEGER, operation TEXT, tool TEXT,
  detail TEXT NOT NULL, resource TEXT NOT NULL, bytes INTEGER NOT NULL,
  UNIQUE (trace_id, span_id));
CREATE INDEX IF NOT EXISTS spans_start ON spans (start_ms);
CREATE TABLE IF NOT EXISTS journal_offsets (file TEXT PRIMARY KEY, offset INTEGER NOT NULL) WITHOUT ROWID;
`;

function refuse(file: string, why: string): CliError {
  return new CliError(`the traces database ${file} ${why}; it is left as it is`, {
    hint: 'move it away to start a new store',
  });
}

/** Opens (making) the database; the caller holds the traces directory (store.ts). */
export function openTracesDb(binding: SqliteBinding, file: string): SqliteDriver {
  const header = sqliteHeaderOf(file);
  if (header?.mark === -1) throw refuse(file, 'is not a SQLite database');
  const newer = (version: number) =>
    refuse(
      file,
      `was written by a newer aip (format ${version}; this one reads ${TRACES_FORMAT}): use that aip`,
    );
  if (header && header.version > TRACES_FORMAT) throw newer(header.version);
  if (header && header.mark !== TRACES_APPLICATION_ID)
    throw refuse(file, `is not aip's traces store (application id 0x${(header.mark >>> 0).toString(16)})`);
  createPrivateFile(file);
  const db = withTransactions(binding.open(file));
  try {
    db.exec('PRAGMA locking_mode = EXCLUSIVE');
    const version = Number(db.prepare('PRAGMA user_version').get()?.user_version ?? 0);
    if (version > TRACES_FORMAT) throw newer(version);
    if (!header) {
      db.exec(`PRAGMA application_id = ${TRACES_APPLICATION_ID}`);
      db.exec('PRAGMA auto_vacuum = INCREMENTAL');
    }
    const mode = db.prepare('PRAGMA journal_mode = WAL').get()?.journal_mode;
    if (mode !== 'wal') throw new Error(`its journal cannot be WAL (${String(mode)})`);
    db.exec('PRAGMA synchronous = NORMAL');
    if (version < TRACES_FORMAT)
      db.transaction(() => {
        db.exec(TABLES);
        db.exec(`PRAGMA user_version = ${TRACES_FORMAT}`);
      });
    return db;
  } catch (error) {
    db.close();
    if (error instanceof CliError) throw error;
    throw refuse(file, `cannot be opened (${(error as Error).message})`);
  }
}
