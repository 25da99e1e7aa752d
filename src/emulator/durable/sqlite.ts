// The durable store of the emulator: one SQLite database in the state directory, through
// better-sqlite3 (synchronous, so a change is written before the answer that follows it is sent).
//
// Why these settings: WAL journaling with synchronous=NORMAL makes each commit reach the operating
// system before it returns, so a process killed at any moment (kill -9) loses nothing it acknowledged
// (a power cut may lose the last moments; FULL would fsync each commit at a tenth of the speed,
// measured in the README's Dependencies). The database is opened in exclusive locking mode, so a
// second emulator on the same directory is refused (the lock goes with the process, however it ends),
// and it is checked (quick_check) and its format verified before anything is served.

import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { CliError } from '../../errors/errors.js';
import type { DocKind, Persistence, StoredDoc } from './persistence.js';

/** What the state directory holds: the database, and who has it open (for the refusal's message). */
export const DB_FILE = 'emulator.db';
const OWNER_FILE = 'owner';
/** The format of the database; a newer one is refused rather than misread. */
const FORMAT = 'aip-emulator-state';
const VERSION = 1;

type Statement = {
  run(...args: unknown[]): unknown;
  all(...args: unknown[]): unknown[];
  get(...args: unknown[]): unknown;
};
interface Database {
  pragma(text: string, options?: { simple?: boolean }): unknown;
  exec(sql: string): void;
  prepare(sql: string): Statement;
  transaction<T>(fn: () => T): () => T;
  close(): void;
}

/** better-sqlite3, an optional dependency: said plainly when it did not install. */
function loadSqlite(): new (file: string, options?: { timeout?: number }) => Database {
  try {
    return createRequire(import.meta.url)('better-sqlite3');
  } catch (error) {
    throw new CliError(
      `the emulator's durable state needs better-sqlite3, which is not installed here (${(error as Error).message.split('\n')[0]}): reinstall aip with its optional dependencies (npm ci), or run aip emulator --ephemeral`,
    );
  }
}

function refuse(dir: string, why: string): CliError {
  return new CliError(`the emulator state directory ${dir} ${why}`);
}

/** Everything in the directory but the database and its companions: a directory that is not ours. */
function foreignEntries(dir: string): string[] {
  const ours = new Set([DB_FILE, `${DB_FILE}-wal`, `${DB_FILE}-shm`, `${DB_FILE}-journal`, OWNER_FILE]);
  return readdirSync(dir).filter((name) => !ours.has(name));
}

export function openSqlitePersistence(dir: string): Persistence {
  const Sqlite = loadSqlite();
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
  } catch (error) {
    throw refuse(
      dir,
      `cannot be made (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`,
    );
  }
  const file = join(dir, DB_FILE);
  const fresh = !existsSync(file);
  if (fresh) {
    const others = foreignEntries(dir);
    if (others.length > 0)
      throw refuse(
        dir,
        `holds files that are not an emulator's (${others.slice(0, 3).join(', ')}${others.length > 3 ? ', …' : ''}): give --state-dir an empty or new directory`,
      );
  }
  let db: Database;
  try {
    // Not waiting on a lock: a busy directory is another emulator's, and said so at once.
    db = new Sqlite(file, { timeout: 100 });
    // Made 0600 before anything is in it (it holds what users sent); SQLite gives its journal files
    // the database file's mode.
    if (fresh) chmodSync(file, 0o600);
    db.pragma('locking_mode = EXCLUSIVE');
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    // Takes the exclusive lock now: a second emulator on this directory fails here, not later.
    db.exec('BEGIN EXCLUSIVE; COMMIT;');
  } catch (error) {
    const message = (error as Error).message;
    if (/locked|busy/i.test(message)) {
      const owner = existsSync(join(dir, OWNER_FILE))
        ? readFileSync(join(dir, OWNER_FILE), 'utf8').trim()
        : '';
      throw refuse(
        dir,
        `is in use by another emulator${owner ? ` (pid ${owner})` : ''}: stop it (aip emulator stop), or give this one another --state-dir`,
      );
    }
    throw refuse(
      dir,
      `has a database that cannot be opened (${message}); it is left as it is: move it away, or give another --state-dir`,
    );
  }
  try {
    const check = db.pragma('quick_check', { simple: true });
    if (check !== 'ok') throw new Error(String(check));
    db.exec(`CREATE TABLE IF NOT EXISTS docs (
      kind TEXT NOT NULL, id TEXT NOT NULL, value TEXT NOT NULL, bytes BLOB,
      PRIMARY KEY (kind, id)) WITHOUT ROWID`);
    const meta = db.prepare("SELECT value FROM docs WHERE kind = 'meta' AND id = 'format'").get() as
      | { value: string }
      | undefined;
    if (!meta) {
      if (!fresh && (db.prepare('SELECT count(*) AS n FROM docs').get() as { n: number }).n > 0)
        throw new Error('it has no format record');
      db.prepare("INSERT INTO docs (kind, id, value) VALUES ('meta', 'format', ?)").run(
        JSON.stringify({ format: FORMAT, version: VERSION, created_at: new Date().toISOString() }),
      );
    } else {
      const format = JSON.parse(meta.value) as { format?: string; version?: number };
      if (format.format !== FORMAT) throw new Error(`it is not an aip emulator's (format ${format.format})`);
      if ((format.version ?? 0) > VERSION)
        throw new Error(
          `it was written by a newer aip (format version ${format.version}; this one reads ${VERSION})`,
        );
    }
  } catch (error) {
    db.close();
    throw refuse(
      dir,
      `has a database that is damaged or not the emulator's (${(error as Error).message}); it is left as it is: move it away, or give another --state-dir`,
    );
  }
  writeFileSync(join(dir, OWNER_FILE), `${process.pid}@${hostname()}\n`, { mode: 0o600 });

  const put = db.prepare('INSERT OR REPLACE INTO docs (kind, id, value, bytes) VALUES (?, ?, ?, ?)');
  const remove = db.prepare('DELETE FROM docs WHERE kind = ? AND id = ?');
  const removePrefix = db.prepare('DELETE FROM docs WHERE kind = ? AND id >= ? AND id < ?');
  const list = db.prepare('SELECT id, value, bytes FROM docs WHERE kind = ? ORDER BY id');
  const counts = db.prepare("SELECT kind, count(*) AS n FROM docs WHERE kind != 'meta' GROUP BY kind");
  let depth = 0;

  return {
    durable: true,
    dir,
    put(kind, id, value, bytes) {
      put.run(kind, id, JSON.stringify(value), bytes ?? null);
    },
    remove(kind, id) {
      remove.run(kind, id);
    },
    removePrefix(kind, prefix) {
      // Every id that starts with prefix sorts between it and prefix + the highest character.
      removePrefix.run(kind, prefix, `${prefix}\uffff`);
    },
    list<T>(kind: DocKind) {
      return (list.all(kind) as Array<{ id: string; value: string; bytes: Buffer | null }>).map(
        (row): StoredDoc<T> => ({
          id: row.id,
          value: JSON.parse(row.value) as T,
          ...(row.bytes ? { bytes: new Uint8Array(row.bytes) } : {}),
        }),
      );
    },
    batch<T>(work: () => T): T {
      // Nested batches join the outer transaction.
      if (depth > 0) return work();
      depth++;
      try {
        return db.transaction(work)();
      } finally {
        depth--;
      }
    },
    counts() {
      return Object.fromEntries(
        (counts.all() as Array<{ kind: DocKind; n: number }>).map((row) => [row.kind, row.n]),
      );
    },
    close() {
      db.close();
      rmSync(join(dir, OWNER_FILE), { force: true });
    },
  };
}
