// The durable store of the emulator: one SQLite database in the state directory, through the binding
// choose-sqlite.ts picks (node:sqlite where Node has it, else SQLite compiled to WebAssembly; what each
// is: sqlite-driver.ts). Both are synchronous, so a change is written before the answer that follows
// it is sent.
//
// Why these settings: WAL journaling with synchronous=NORMAL makes each commit reach the operating
// system before it returns, so a process killed at any moment (kill -9) loses nothing it acknowledged
// (a power cut may lose the last moments; FULL would fsync each commit, many times slower). Exclusive
// locking mode, set before anything is read, keeps WAL's index in the process's memory rather than in
// shared memory, which the WebAssembly build does not have (without it that build cannot use WAL, nor
// open a database in WAL mode); with node:sqlite it also locks the file for as long as it is open. Who
// may open the directory at all is decided before, by its owner file (owner-lock.ts), so that a second
// emulator is refused at once whatever its binding. The database is checked (quick_check) and its
// format verified before anything is served.

import { closeSync, existsSync, mkdirSync, openSync, readdirSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { CliError } from '../../errors/errors.js';
import { chooseSqliteBinding } from './choose-sqlite.js';
import { claimOwner, OWNER_FILE, OWNER_PASSING, type Owner, type OwnerLock, ownerOf } from './owner-lock.js';
import type { DocKind, Persistence, StoredDoc } from './persistence.js';
import { type SqliteBinding, type SqliteDriver, withTransactions } from './sqlite-driver.js';

/** What the state directory holds: the database (its companions beside it), and its owner. */
export const DB_FILE = 'emulator.db';
/** What SQLite and its bindings keep beside the database; the WebAssembly build's lock is a directory. */
const COMPANIONS = ['-wal', '-shm', '-journal', '.lock'].map((suffix) => `${DB_FILE}${suffix}`);
/** The format of the database; a newer one is refused rather than misread. */
const FORMAT = 'aip-emulator-state';
const VERSION = 1;

export interface SqliteOptions {
  /** AIP_EMULATOR_SQLITE: `node`, `wasm`, or unset for the default (choose-sqlite.ts). */
  sqlite?: string;
}

function refuse(dir: string, why: string): CliError {
  return new CliError(`the emulator state directory ${dir} ${why}`);
}

function inUse(dir: string, owner: Owner | undefined, elsewhere = false): CliError {
  const who = `is in use by another emulator${owner ? ` (pid ${owner.label})` : ''}`;
  return refuse(
    dir,
    elsewhere
      ? `${who}, on another machine: stop it there, or give this one another --state-dir (if none runs there any more, remove ${join(dir, OWNER_FILE)})`
      : `${who}: stop it (aip emulator stop), or give this one another --state-dir`,
  );
}

/** Everything in the directory but the database, its companions and its owner: a directory that is not ours. */
function foreignEntries(dir: string): string[] {
  const ours = new Set([DB_FILE, ...COMPANIONS, OWNER_FILE]);
  return readdirSync(dir).filter((name) => !ours.has(name) && !OWNER_PASSING.test(name));
}

/** Makes the directory (0700) if need be; refuses one that holds what is not an emulator's. */
function prepareDir(dir: string, file: string): void {
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
  } catch (error) {
    throw refuse(
      dir,
      `cannot be made (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`,
    );
  }
  if (existsSync(file)) return;
  const others = foreignEntries(dir);
  if (others.length > 0)
    throw refuse(
      dir,
      `holds files that are not an emulator's (${others.slice(0, 3).join(', ')}${others.length > 3 ? ', …' : ''}): give --state-dir an empty or new directory`,
    );
}

/** Opens the database in WAL and exclusive locking mode, and takes its lock now. */
function openLocked(binding: SqliteBinding, file: string): SqliteDriver {
  // Made 0600 before anything is in it (it holds what users sent); SQLite gives its journal files the
  // database file's mode.
  try {
    closeSync(openSync(file, 'wx', 0o600));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  const db = withTransactions(binding.open(file));
  try {
    db.exec('PRAGMA locking_mode = EXCLUSIVE');
    const mode = db.prepare('PRAGMA journal_mode = WAL').get()?.journal_mode;
    if (mode !== 'wal') throw new Error(`its journal cannot be WAL (${String(mode)})`);
    db.exec('PRAGMA synchronous = NORMAL');
    // Takes the exclusive lock now: a second emulator on this directory fails here, not later.
    db.exec('BEGIN EXCLUSIVE; COMMIT;');
    return db;
  } catch (error) {
    db.close();
    throw error;
  }
}

/** quick_check, the table, and the format record (written into a new database, verified in an old one). */
function checkFormat(db: SqliteDriver): void {
  const check = db.prepare('PRAGMA quick_check').get();
  const verdict = check && Object.values(check)[0];
  if (verdict !== 'ok') throw new Error(String(verdict));
  db.exec(`CREATE TABLE IF NOT EXISTS docs (
    kind TEXT NOT NULL, id TEXT NOT NULL, value TEXT NOT NULL, bytes BLOB,
    PRIMARY KEY (kind, id)) WITHOUT ROWID`);
  const meta = db.prepare("SELECT value FROM docs WHERE kind = 'meta' AND id = 'format'").get();
  if (!meta) {
    if (Number(db.prepare('SELECT count(*) AS n FROM docs').get()?.n) > 0)
      throw new Error('it has no format record');
    db.prepare("INSERT INTO docs (kind, id, value) VALUES ('meta', 'format', ?)").run(
      JSON.stringify({ format: FORMAT, version: VERSION, created_at: new Date().toISOString() }),
    );
    return;
  }
  const format = JSON.parse(String(meta.value)) as { format?: string; version?: number };
  if (format.format !== FORMAT) throw new Error(`it is not an aip emulator's (format ${format.format})`);
  if ((format.version ?? 0) > VERSION)
    throw new Error(
      `it was written by a newer aip (format version ${format.version}; this one reads ${VERSION})`,
    );
}

export function openSqlitePersistence(dir: string, options: SqliteOptions = {}): Persistence {
  const binding = chooseSqliteBinding(options.sqlite);
  const file = join(dir, DB_FILE);
  prepareDir(dir, file);
  // A record from another machine is left alone by a binding without the operating system's lock, and
  // taken by one with it, whose lock then says whether that emulator still has the database open.
  const claim = claimOwner(dir, { elsewhere: binding.osLock ? 'take' : 'leave' });
  if ('busy' in claim) throw inUse(dir, claim.busy, claim.elsewhere);
  const owner = claim.held;
  let db: SqliteDriver;
  try {
    db = openLocked(binding, file);
  } catch (error) {
    owner.giveBack();
    const message = (error as Error).message;
    if (/locked|busy/i.test(message)) {
      const holder = ownerOf(dir);
      throw inUse(dir, holder, holder !== undefined && holder.host !== hostname());
    }
    throw refuse(
      dir,
      `has a database that cannot be opened (${message}); it is left as it is: move it away, or give another --state-dir`,
    );
  }
  try {
    checkFormat(db);
  } catch (error) {
    db.close();
    owner.giveBack();
    throw refuse(
      dir,
      `has a database that is damaged or not the emulator's (${(error as Error).message}); it is left as it is: move it away, or give another --state-dir`,
    );
  }
  return storeOver(db, dir, binding.name, owner);
}

/** A blob as the stores keep it: a plain Uint8Array (a binding may give a Buffer). */
function plainBytes(value: unknown): Uint8Array | undefined {
  if (!(value instanceof Uint8Array)) return undefined;
  return value.constructor === Uint8Array ? value : new Uint8Array(value);
}

function storeOver(db: SqliteDriver, dir: string, driver: string, owner: OwnerLock): Persistence {
  const put = db.prepare('INSERT OR REPLACE INTO docs (kind, id, value, bytes) VALUES (?, ?, ?, ?)');
  const remove = db.prepare('DELETE FROM docs WHERE kind = ? AND id = ?');
  const removePrefix = db.prepare('DELETE FROM docs WHERE kind = ? AND id >= ? AND id < ?');
  const list = db.prepare('SELECT id, value, bytes FROM docs WHERE kind = ? ORDER BY id');
  const counts = db.prepare("SELECT kind, count(*) AS n FROM docs WHERE kind != 'meta' GROUP BY kind");

  return {
    durable: true,
    dir,
    driver,
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
      return list.all(kind).map((row): StoredDoc<T> => {
        const bytes = plainBytes(row.bytes);
        return { id: String(row.id), value: JSON.parse(String(row.value)) as T, ...(bytes ? { bytes } : {}) };
      });
    },
    batch<T>(work: () => T): T {
      // Nested batches join the outer transaction.
      return db.transaction(work);
    },
    counts() {
      return Object.fromEntries(counts.all().map((row) => [String(row.kind), Number(row.n)]));
    },
    close() {
      db.close();
      owner.release();
    },
  };
}
