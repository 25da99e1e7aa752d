// Folding the journal (journal.ts: one file a process, one event a line) into the store. Each file is
// read from where the last fold stopped (journal_offsets) to its last complete line, and what is read
// is written in one transaction with the offset reached: a process killed mid-fold leaves either all of
// a batch or none of it, and the next fold starts where the last commit left off, so nothing is folded
// twice. A finished file is deleted once folded, then its offset; an unfinished one (its process is
// still running: a rollout of hours) is folded on from its offset next time.
//
// Finished means: its last complete line is `end`; or its process is gone (this machine's, by the host
// tag in its name, and no process has its pid); or, from another machine (a shared home), it has not
// changed for STALE_ELSEWHERE_MS. A torn last line (a process killed in the middle of a write) is
// never folded: a finished file's is dropped with it.

import { closeSync, openSync, readdirSync, readSync, statSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { isProcessAlive } from '../fs/atomic-write.js';
import { removeFile } from '../fs/remove-file.js';
import { applyEvent, type EventTarget, eventTarget } from './apply.js';
import { isOwnJournal } from './journal.js';
import { journalHostTag } from './paths.js';
import type { SqliteDriver, SqliteStatement } from './sqlite.js';

/** A journal file's name: `<epochMs>-<pid>-<hostTag>-<random>.jsonl`. */
const JOURNAL_NAME = /^(\d+)-(\d+)-([0-9a-f]{8})-([0-9a-z]+)\.jsonl$/;
/** A file from another machine unchanged this long is taken as finished (its process cannot be asked). */
export const STALE_ELSEWHERE_MS = 24 * 3600 * 1000;
/** Read this much at a time, each batch one transaction (more for a line longer than that). */
const CHUNK_BYTES = 4 * 1024 * 1024;

interface Offset {
  offset: number;
  lastKind: string | null;
  run: string | null;
}

/** Whether the file's process can no longer write to it. Asked before it is read, so nothing is missed. */
function processGone(name: string, mtimeMs: number, now: number): boolean {
  const match = JOURNAL_NAME.exec(name)!;
  const pid = Number(match[2]);
  if (match[3] === journalHostTag(hostname()))
    return pid === process.pid ? !isOwnJournal(name) : !isProcessAlive(pid);
  return now - mtimeMs > STALE_ELSEWHERE_MS;
}

/** A fold's statements, made once for all its files (with 1,000 files, made again for each cost 0.5 s). */
interface FoldStatements {
  target: EventTarget;
  readOffset: SqliteStatement;
  saveOffset: SqliteStatement;
}

const statementsOf = new WeakMap<SqliteDriver, FoldStatements>();

function statements(db: SqliteDriver): FoldStatements {
  let made = statementsOf.get(db);
  if (!made) {
    made = {
      target: eventTarget(db),
      readOffset: db.prepare('SELECT offset, last_kind, run FROM journal_offsets WHERE file = ?'),
      saveOffset: db.prepare(
        'INSERT OR REPLACE INTO journal_offsets (file, offset, last_kind, run) VALUES (?, ?, ?, ?)',
      ),
    };
    statementsOf.set(db, made);
  }
  return made;
}

function readOffset(db: SqliteDriver, name: string): Offset {
  const row = statements(db).readOffset.get(name);
  return {
    offset: Number(row?.offset ?? 0),
    lastKind: row?.last_kind == null ? null : String(row.last_kind),
    run: row?.run == null ? null : String(row.run),
  };
}

/** The events of a batch of complete lines; a line that is not an event (not JSON, not an object) is skipped. */
function parseLines(text: string): unknown[] {
  const events: unknown[] = [];
  for (const line of text.split('\n')) {
    if (line === '') continue;
    try {
      events.push(JSON.parse(line));
    } catch {
      // not written by aip's journal, which writes whole lines: nothing to keep
    }
  }
  return events;
}

/**
 * Folds what the file held past its offset when it was looked at (`size`: what it grows by meanwhile
 * is folded next time); returns the events folded and where it stands.
 */
function foldFrom(
  db: SqliteDriver,
  path: string,
  name: string,
  start: Offset,
  size: number,
): { events: number; at: Offset } {
  const fd = openSync(path, 'r');
  const { target, saveOffset } = statements(db);
  const at = { ...start };
  let events = 0;
  try {
    let chunk = CHUNK_BYTES;
    while (at.offset < size) {
      // No more than the file holds past the offset: most files are a few hundred bytes, and a 4 MB
      // buffer zeroed for each was most of a fold's time (bench/history.mjs).
      const buffer = Buffer.allocUnsafe(Math.min(chunk, size - at.offset));
      const n = readSync(fd, buffer, 0, buffer.length, at.offset);
      if (n === 0) break;
      const end = buffer.subarray(0, n).lastIndexOf(0x0a);
      if (end < 0) {
        // A line longer than the chunk, or a torn tail: read more, or stop at the end of the file.
        if (at.offset + n >= size) break;
        chunk *= 2;
        continue;
      }
      const batch = parseLines(buffer.toString('utf8', 0, end));
      db.transaction(() => {
        for (const event of batch) {
          const kind = applyEvent(target, event);
          if (kind === undefined) continue;
          at.lastKind = kind;
          if (kind === 'begin') at.run = String((event as { run: string }).run);
        }
        at.offset += end + 1;
        saveOffset.run(name, at.offset, at.lastKind, at.run);
      });
      events += batch.length;
      chunk = CHUNK_BYTES;
    }
  } finally {
    closeSync(fd);
  }
  return { events, at };
}

/** A finished file's invocation that never said how it ended (its process was killed): ended when it last wrote. */
function markUnended(db: SqliteDriver, run: string | null, mtimeMs: number): void {
  if (run === null) return;
  db.prepare('UPDATE invocations SET ended_at = ? WHERE run = ? AND ended_at IS NULL').run(
    new Date(mtimeMs).toISOString(),
    run,
  );
}

/** What folding a file's rows left to do once they are committed: remove a finished file. */
interface Folded {
  events: number;
  finished: boolean;
}

function foldRows(db: SqliteDriver, dir: string, name: string, stat: Stat, now: number): Folded {
  const { size, mtimeMs } = stat;
  const gone = processGone(name, mtimeMs, now);
  let folded: ReturnType<typeof foldFrom>;
  try {
    folded = foldFrom(db, join(dir, name), name, readOffset(db, name), size);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { events: 0, finished: false }; // gone meanwhile
    throw error;
  }
  const { events, at } = folded;
  const finished = gone || at.lastKind === 'end';
  if (finished && at.lastKind !== 'end') markUnended(db, at.run, mtimeMs);
  return { events, finished };
}

/** Removes folded finished files, then their offsets: killed between the two, a stale offset is cleared next time. */
function removeFinished(db: SqliteDriver, dir: string, names: readonly string[]): void {
  const removed = names.filter((name) => {
    try {
      removeFile(join(dir, name));
      return true;
    } catch {
      // Not removable (a read-only directory): its offset stays, so it is not folded again.
      return false;
    }
  });
  if (removed.length === 0) return;
  const forget = db.prepare('DELETE FROM journal_offsets WHERE file = ?');
  db.transaction(() => {
    for (const name of removed) forget.run(name);
  });
}

/** Files are folded in transactions of about this much journal each (a commit a file was slow). */
const BATCH_BYTES = 16 * 1024 * 1024;

/** A journal file's size and last write, looked at once a fold; undefined when it is gone meanwhile. */
type Stat = { size: number; mtimeMs: number };

function statOf(path: string): Stat | undefined {
  try {
    const { size, mtimeMs } = statSync(path);
    return { size, mtimeMs };
  } catch {
    return undefined;
  }
}

/** Folds every journal file (finished or not), oldest first; returns how many events were folded. */
export function foldJournal(db: SqliteDriver, dir: string, now = Date.now()): number {
  let names: string[];
  try {
    names = readdirSync(dir).filter((name) => JOURNAL_NAME.test(name));
  } catch {
    names = [];
  }
  names.sort((a, b) => Number(a.split('-')[0]) - Number(b.split('-')[0]) || a.localeCompare(b));
  let events = 0;
  // Small files are folded a batch at a time, each batch one transaction (their rows and offsets),
  // committed before any of them is removed: a kill at any point loses nothing and folds nothing
  // twice. A file larger than a batch is folded alone, a transaction a chunk (foldFrom).
  const stats = names.map((name) => statOf(join(dir, name)));
  const sizes = stats.map((stat) => stat?.size ?? 0);
  for (let i = 0; i < names.length; ) {
    const finished: string[] = [];
    const fold = (index: number) => {
      const stat = stats[index];
      if (!stat) return; // gone meanwhile
      const folded = foldRows(db, dir, names[index]!, stat, now);
      events += folded.events;
      if (folded.finished) finished.push(names[index]!);
    };
    if (sizes[i]! > BATCH_BYTES) fold(i++);
    else
      db.transaction(() => {
        let bytes = 0;
        while (i < names.length && sizes[i]! <= BATCH_BYTES && bytes + sizes[i]! <= BATCH_BYTES) {
          bytes += sizes[i]!;
          fold(i++);
        }
      });
    removeFinished(db, dir, finished);
  }
  // Offsets of files no longer there (deleted by a fold killed before it cleared their offset).
  const present = new Set(names);
  const stale = db
    .prepare('SELECT file FROM journal_offsets')
    .all()
    .map((row) => String(row.file))
    .filter((file) => !present.has(file));
  if (stale.length > 0) {
    const forget = db.prepare('DELETE FROM journal_offsets WHERE file = ?');
    db.transaction(() => {
      for (const file of stale) forget.run(file);
    });
  }
  return events;
}
