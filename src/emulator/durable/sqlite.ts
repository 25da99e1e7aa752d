// The durable store of the emulator: one SQLite database in the state directory, through the binding
// lib/sqlite/choose-sqlite.ts picks (node:sqlite where Node has it, else SQLite compiled to WebAssembly; what each
// is: lib/sqlite/sqlite-driver.ts). Both are synchronous, so a change is written before the answer that follows
// it is sent.
//
// Why these settings: WAL journaling with synchronous=NORMAL makes each commit reach the operating
// system before it returns, so a process killed at any moment (kill -9) loses nothing it acknowledged
// (a power cut may lose the last moments; FULL would fsync each commit, many times slower). Exclusive
// locking mode, set before anything is read, keeps WAL's index in the process's memory rather than in
// shared memory, which the WebAssembly build does not have (without it that build cannot use WAL, nor
// open a database in WAL mode); with node:sqlite it also locks the file for as long as it is open. Who
// may open the directory at all is decided before, by its owner file (fs/owner-lock.ts), so that a second
// emulator is refused at once whatever its binding. The database is checked (quick_check) and its
// format verified before anything is served.
//
// The directory is the emulator's own, and nothing else is written to: its database carries aip's mark
// in SQLite's header (PRAGMA application_id, written into a new database before anything else), and an
// existing one without it is opened only if it is an earlier aip's (its `docs` table, its format
// record: read without writing, then marked). Anything else (another application's database, one with
// no tables, a file that is not SQLite) is refused with its bytes untouched, and so is a symbolic link
// in place of the directory, the database or anything beside it. Made here: the directory 0700, the
// database 0600; existing ones writable by others are warned about (Persistence.notes), not changed.

import {
  chmodSync,
  closeSync,
  constants,
  copyFileSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readlinkSync,
  readSync,
  rmSync,
  type Stats,
  statfsSync,
} from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { type CliError, UsageError } from '../../errors/errors.js';
import {
  claimOwner,
  OWNER_FILE,
  OWNER_PASSING,
  type Owner,
  type OwnerLock,
  ownerOf,
} from '../../fs/owner-lock.js';
import { createPrivateFile } from '../../fs/private-file.js';
import { describeFsError, fsErrorCode, isFsError } from '../../fs/write-error.js';
import { chooseSqliteBinding } from '../../lib/sqlite/choose-sqlite.js';
import {
  type SqliteBinding,
  type SqliteDriver,
  type SqlRow,
  withTransactions,
} from '../../lib/sqlite/sqlite-driver.js';
import { LaterWrites } from './later-writes.js';
import { type DocKind, type Persistence, StorageFullError, type StoredDoc } from './persistence.js';

/** What the state directory holds: the database (its companions beside it), and its owner. */
export const DB_FILE = 'emulator.db';
/** What SQLite and its bindings keep beside the database; the WebAssembly build's lock is a directory. */
const COMPANIONS = ['-wal', '-shm', '-journal', '.lock'].map((suffix) => `${DB_FILE}${suffix}`);
/** The format of the database; a newer one is refused rather than misread. */
const FORMAT = 'aip-emulator-state';
const VERSION = 1;
/**
 * aip's mark in the database's header (SQLite's application_id, bytes 68–71): "AIPE". Written into a
 * new database first of all, and into an earlier aip's when it is opened.
 */
export const APPLICATION_ID = 0x41495045;
/** The file header SQLite starts a database with. */
const SQLITE_MAGIC = 'SQLite format 3\0';
/** Jobs not yet ended: what a partial index holds, and what the query that uses it must say. */
const ACTIVE_JOBS = `kind = 'job' AND json_extract(value, '$.status') IN ('queued', 'running')`;
const ACTIVE_JOBS_INDEX = `docs_active_jobs ON docs (kind, id) WHERE ${ACTIVE_JOBS}`;
/** The one table of the store, as every aip has made it: how an earlier aip's database is known. */
const DOCS_COLUMNS = ['kind', 'id', 'value', 'bytes'];

export interface SqliteOptions {
  /** AIP_EMULATOR_SQLITE: `node`, `wasm`, or unset for the default (choose-sqlite.ts). */
  sqlite?: string;
}

// Nothing is started when the directory is refused: as an unusable setting, exit 2 (docs/settings.md).
function refuse(dir: string, why: string): CliError {
  return new UsageError(`the emulator state directory ${dir} ${why}`);
}

const LEFT = 'it is left as it is';

/** A database that is not the emulator's: named, and left as it is. */
class NotOurs extends Error {}

function statOf(path: string): Stats | undefined {
  try {
    return lstatSync(path);
  } catch (error) {
    if (fsErrorCode(error) === 'ENOENT') return undefined;
    throw error;
  }
}

function linkTarget(path: string): string {
  try {
    return readlinkSync(path);
  } catch {
    return '?';
  }
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

/**
 * Makes the directory (0700) if need be; refuses a symbolic link in place of it or of anything of the
 * emulator's in it, and a directory that holds what is not an emulator's. Notes what is writable by others.
 */
function prepareDir(dir: string, file: string, notes: string[]): void {
  const stats = statOf(dir);
  if (stats?.isSymbolicLink())
    throw refuse(
      dir,
      `is a symbolic link (to ${linkTarget(dir)}): the emulator follows none, and ${LEFT}; give --state-dir a directory of its own`,
    );
  if (stats && !stats.isDirectory()) throw refuse(dir, `is not a directory; ${LEFT}`);
  if (!stats) {
    try {
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      // As made, whatever the umask.
      chmodSync(dir, 0o700);
    } catch (error) {
      if (!isFsError(error)) throw error;
      throw refuse(dir, `cannot be made: ${describeFsError(error)}`);
    }
  } else if (process.platform !== 'win32' && stats.mode & 0o022) {
    notes.push(writableByOthers(dir, stats, 0o700));
  }
  for (const name of [DB_FILE, ...COMPANIONS, OWNER_FILE]) {
    const path = join(dir, name);
    const entry = statOf(path);
    if (!entry) continue;
    if (entry.isSymbolicLink())
      throw refuse(
        dir,
        `holds ${name} as a symbolic link (to ${linkTarget(path)}): the emulator follows none, and ${LEFT}; give --state-dir a directory of its own`,
      );
    // SQLite's companions and the owner record are files; the WebAssembly build's lock is a directory.
    const expected = name.endsWith('.lock') ? entry.isDirectory() : entry.isFile();
    if (!expected)
      throw refuse(
        dir,
        `holds ${name}, which is not the ${name.endsWith('.lock') ? 'directory' : 'file'} the emulator keeps there; ${LEFT}`,
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

function writableByOthers(path: string, stats: Stats, mode: number): string {
  const was = (stats.mode & 0o777).toString(8).padStart(4, '0');
  return `${path} is writable by others (mode ${was}): anyone who can write it can change or replace the emulator's state; the emulator makes it ${mode.toString(8).padStart(4, '0')} (chmod ${mode.toString(8)} ${path})`;
}

/** The first 100 bytes of the file (SQLite's header), read without following a link. */
function headerOf(file: string): Buffer {
  const fd = openSync(file, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0));
  try {
    const header = Buffer.alloc(100);
    const n = readSync(fd, header, 0, 100, 0);
    return header.subarray(0, n);
  } finally {
    closeSync(fd);
  }
}

/**
 * Whose the existing database is, read without writing anything: `new` (none, or an empty file an
 * emulator made and stopped before its first write), `ours` (aip's mark), `earlier` (an earlier aip's:
 * its docs table and format record, no mark). Throws NotOurs for anything else.
 */
function ownerOfDatabase(binding: SqliteBinding, file: string): 'new' | 'ours' | 'earlier' {
  const stats = statOf(file);
  if (!stats || stats.size === 0) return 'new';
  const header = headerOf(file);
  if (header.length < 100 || header.toString('latin1', 0, 16) !== SQLITE_MAGIC)
    throw new Error('file is not a database');
  const marked = header.readInt32BE(68);
  if (marked === APPLICATION_ID) return 'ours';
  if (marked !== 0)
    throw new NotOurs(`another application's: its application id is 0x${(marked >>> 0).toString(16)}`);
  // No mark in the file's own header: an earlier aip's, one whose mark is still in its WAL, or another
  // application's. Read from a copy (the file and its WAL), which SQLite may recover and checkpoint as
  // it likes: the file itself is neither written nor checkpointed. Not opened read-only in place: a
  // WAL database needs its -shm written even to be read, which read-only refuses (node:sqlite: "disk
  // I/O error" on the better-sqlite3 store's files).
  const copy = mkdtempSync(join(tmpdir(), 'aip-emulator-check-'));
  try {
    return ownerOfCopy(binding, file, copy);
  } finally {
    rmSync(copy, { recursive: true, force: true });
  }
}

function ownerOfCopy(binding: SqliteBinding, file: string, dir: string): 'ours' | 'earlier' {
  const copied = join(dir, 'emulator.db');
  copyFileSync(file, copied);
  if (existsSync(`${file}-wal`)) copyFileSync(`${file}-wal`, `${copied}-wal`);
  const db = binding.open(copied);
  try {
    db.exec('PRAGMA locking_mode = EXCLUSIVE');
    if (Number(db.prepare('PRAGMA application_id').get()?.application_id) === APPLICATION_ID) return 'ours';
    const schema = db.prepare('SELECT type, name FROM sqlite_master').all();
    const names = schema.map((row) => `${String(row.name)}`);
    // The active-jobs index may be there beside the table (made by this aip, killed before its mark).
    const tables = schema.filter((row) => !(row.type === 'index' && row.name === 'docs_active_jobs'));
    const docs = tables.length === 1 && tables[0]?.type === 'table' && tables[0]?.name === 'docs';
    const columns = docs
      ? db
          .prepare('PRAGMA table_info(docs)')
          .all()
          .map((row) => String(row.name))
      : [];
    if (docs && columns.join() === DOCS_COLUMNS.join()) {
      const format = db.prepare("SELECT value FROM docs WHERE kind = 'meta' AND id = 'format'").get();
      if (
        format
          ? String(format.value).includes(`"format":"${FORMAT}"`)
          : !db.prepare('SELECT 1 FROM docs LIMIT 1').get()
      )
        return 'earlier';
    }
    throw new NotOurs(
      names.length === 0
        ? "a SQLite database without aip's mark, and without tables"
        : `a SQLite database without aip's mark (its tables: ${names.slice(0, 4).join(', ')}${names.length > 4 ? ', …' : ''})`,
    );
  } finally {
    db.close();
  }
}

/** Opens the database in WAL and exclusive locking mode, and takes its lock now. */
function openLocked(binding: SqliteBinding, file: string, fresh: boolean): SqliteDriver {
  createPrivateFile(file);
  const db = withTransactions(binding.open(file));
  try {
    db.exec('PRAGMA locking_mode = EXCLUSIVE');
    // aip's mark first of all, in the file's own header (before WAL): a database stopped at any moment
    // after this is known as the emulator's.
    if (fresh) db.exec(`PRAGMA application_id = ${APPLICATION_ID}`);
    const mode = db.prepare('PRAGMA journal_mode = WAL').get()?.journal_mode;
    if (mode !== 'wal') throw new Error(`its journal cannot be WAL (${String(mode)})`);
    db.exec('PRAGMA synchronous = NORMAL');
    // WAL is copied into the database (and both synced) each time it passes this many pages: every
    // 1,000 pages, SQLite's default, was 40 syncs a 4,000-create run; the WAL may now reach 40 MB
    // before it is copied (and is on a clean stop). What a commit promises is the same either way.
    db.exec('PRAGMA wal_autocheckpoint = 10000');
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
    indexActiveJobs(db);
    return;
  }
  const format = JSON.parse(String(meta.value)) as { format?: string; version?: number };
  if (format.format !== FORMAT) throw new Error(`it is not an aip emulator's (format ${format.format})`);
  if ((format.version ?? 0) > VERSION)
    throw new Error(
      `it was written by a newer aip (format version ${format.version}; this one reads ${VERSION})`,
    );
  // An earlier aip's database: marked now.
  if (Number(db.prepare('PRAGMA application_id').get()?.application_id) !== APPLICATION_ID)
    db.exec(`PRAGMA application_id = ${APPLICATION_ID}`);
  indexActiveJobs(db);
}

/**
 * The jobs still to run, indexed by SQLite itself (kept by whichever aip writes the file, earlier
 * ones too): start-up reads these few rather than every job of 100,000. Made once the file is known
 * to be one this aip may change (its format checked, its mark written), never in one it refuses.
 */
function indexActiveJobs(db: SqliteDriver): void {
  db.exec(`CREATE INDEX IF NOT EXISTS ${ACTIVE_JOBS_INDEX}`);
}

export function openSqlitePersistence(dir: string, options: SqliteOptions = {}): Persistence {
  const binding = chooseSqliteBinding(options.sqlite);
  try {
    return openIn(dir, binding);
  } catch (error) {
    // Whatever the file system refused (a directory that cannot be read, a full disk): one line, its path.
    if (!isFsError(error)) throw error;
    const path = error.path && error.path !== dir ? ` (${error.path})` : '';
    throw refuse(
      dir,
      `cannot be used: ${describeFsError(error)}${path}; nothing was changed in it: check that it is yours, readable and writable, or give another --state-dir`,
    );
  }
}

function openIn(dir: string, binding: SqliteBinding): Persistence {
  const file = join(dir, DB_FILE);
  const notes: string[] = [];
  prepareDir(dir, file, notes);
  // A record from another machine is left alone by a binding without the operating system's lock, and
  // taken by one with it, whose lock then says whether that emulator still has the database open.
  const claim = claimOwner(dir, { elsewhere: binding.osLock ? 'take' : 'leave' });
  if ('busy' in claim) throw inUse(dir, claim.busy, claim.elsewhere);
  const owner = claim.held;
  let whose: 'new' | 'ours' | 'earlier';
  try {
    whose = ownerOfDatabase(binding, file);
  } catch (error) {
    owner.giveBack();
    if (error instanceof NotOurs)
      throw refuse(
        dir,
        `has a database that is not an emulator's (${file}: ${error.message}); ${LEFT}: move it away, or give another --state-dir`,
      );
    if (isFsError(error)) throw error;
    throw refuse(
      dir,
      `has a database that cannot be opened (${file}: ${(error as Error).message}); ${LEFT}: move it away, or give another --state-dir`,
    );
  }
  const existing = statOf(file);
  if (existing && process.platform !== 'win32' && existing.mode & 0o022)
    notes.push(writableByOthers(file, existing, 0o600));
  let db: SqliteDriver;
  try {
    db = openLocked(binding, file, whose === 'new');
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
  return storeOver(db, dir, binding.name, owner, notes);
}

/** A blob as the stores keep it: a plain Uint8Array (a binding may give a Buffer). */
function plainBytes(value: unknown): Uint8Array | undefined {
  if (!(value instanceof Uint8Array)) return undefined;
  return value.constructor === Uint8Array ? value : new Uint8Array(value);
}

/** Whether a write failed for want of space: SQLite's SQLITE_FULL, or an I/O error on a full file system. */
function isFull(error: unknown, dir: string): boolean {
  const {
    message = '',
    errcode,
    code,
  } = (error ?? {}) as { message?: string; errcode?: number; code?: string };
  if ((errcode ?? 0) % 256 === 13 || /database or disk is full|SQLITE_FULL/i.test(message)) return true;
  if (code === 'ENOSPC' || code === 'EDQUOT') return true;
  // The WebAssembly build reports any failed write as "disk I/O error": the file system says whether it is full.
  if (!/disk I\/O error|SQLITE_IOERR/i.test(message)) return false;
  try {
    return statfsSync(dir).bavail === 0;
  } catch {
    return false;
  }
}

function storeOver(
  db: SqliteDriver,
  dir: string,
  driver: string,
  owner: OwnerLock,
  notes: readonly string[],
): Persistence {
  const file = join(dir, DB_FILE);
  const later = new LaterWrites(() => {
    try {
      persistence.flush();
    } catch {
      // Nobody to answer: a full disk is logged (onFull); the record is kept in memory only.
    }
  });
  db.onBegin = () => later.writeInto();
  // A write that fails for want of space is a StorageFullError (answered 507, pipeline.ts); SQLite has
  // rolled it back, and what is already there is still read. Every write is in a transaction, which
  // takes what is held (LaterWrites) with it.
  const writing = <T>(work: () => T): T => {
    try {
      return db.transaction(work);
    } catch (error) {
      if (error instanceof StorageFullError || !isFull(error, dir)) throw error;
      const refused = new StorageFullError(file, error);
      persistence.onFull?.(refused);
      throw refused;
    }
  };
  const put = db.prepare('INSERT OR REPLACE INTO docs (kind, id, value, bytes) VALUES (?, ?, ?, ?)');
  const remove = db.prepare('DELETE FROM docs WHERE kind = ? AND id = ?');
  const removePrefix = db.prepare('DELETE FROM docs WHERE kind = ? AND id >= ? AND id < ?');
  const list = db.prepare('SELECT id, value, bytes FROM docs WHERE kind = ? ORDER BY id');
  const getOne = db.prepare('SELECT id, value, bytes FROM docs WHERE kind = ? AND id = ?');
  const listRange = db.prepare(
    'SELECT id, value, bytes FROM docs WHERE kind = ? AND id >= ? AND id < ? ORDER BY id',
  );
  const countOf = db.prepare('SELECT count(*) AS n FROM docs WHERE kind = ?');
  const fieldOf = db.prepare(
    'SELECT id, json_extract(value, ?) AS value FROM docs WHERE kind = ? ORDER BY id',
  );
  // Named: with nothing to tell it that few jobs are running, SQLite would walk them all instead.
  const activeJobs = db.prepare(
    `SELECT id, value, bytes FROM docs INDEXED BY docs_active_jobs WHERE ${ACTIVE_JOBS} ORDER BY id`,
  );
  const counts = db.prepare("SELECT kind, count(*) AS n FROM docs WHERE kind != 'meta' GROUP BY kind");
  // Every id that starts with prefix sorts between it and prefix + the highest character.
  const upTo = (prefix: string) => `${prefix}\uffff`;

  const persistence: Persistence = {
    durable: true,
    dir,
    driver,
    notes,
    put(kind, id, value, bytes) {
      writing(() => put.run(kind, id, JSON.stringify(value), bytes ?? null));
    },
    putLater(kind, id, value) {
      const text = JSON.stringify(value);
      later.hold(`${kind}\0${id}`, () => put.run(kind, id, text, null));
    },
    removeLater(kind, id) {
      later.hold(`${kind}\0${id}`, () => remove.run(kind, id));
    },
    flush() {
      if (later.size > 0) writing(() => later.writeInto());
    },
    remove(kind, id) {
      writing(() => remove.run(kind, id));
    },
    removePrefix(kind, prefix) {
      writing(() => removePrefix.run(kind, prefix, upTo(prefix)));
    },
    list: <T>(kind: DocKind) => list.all(kind).map(docOf<T>),
    get<T>(kind: DocKind, id: string) {
      const row = getOne.get(kind, id);
      return row ? docOf<T>(row) : undefined;
    },
    listPrefix: <T>(kind: DocKind, prefix: string) => listRange.all(kind, prefix, upTo(prefix)).map(docOf<T>),
    listActiveJobs: <T>() => activeJobs.all().map(docOf<T>),
    listField: <T>(kind: DocKind, path: string) =>
      fieldOf.all(path, kind).map((row) => ({ id: String(row.id), value: row.value as T })),
    count: (kind) => Number(countOf.get(kind)?.n ?? 0),
    batch<T>(work: () => T): T {
      // Nested batches join the outer transaction.
      return writing(work);
    },
    counts() {
      return Object.fromEntries(counts.all().map((row) => [String(row.kind), Number(row.n)]));
    },
    close() {
      try {
        persistence.flush();
      } catch {
        // A full disk: the last records stay unwritten, as they would have been refused.
      }
      db.close();
      owner.release();
    },
  };
  return persistence;
}

/** A row as the stores read it: its value parsed, its bytes (if any) a plain Uint8Array. */
function docOf<T>(row: SqlRow): StoredDoc<T> {
  const bytes = plainBytes(row.bytes);
  return { id: String(row.id), value: JSON.parse(String(row.value)) as T, ...(bytes ? { bytes } : {}) };
}
