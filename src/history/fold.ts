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

import { closeSync, fstatSync, openSync, readSync, statSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { isProcessAlive } from '../fs/atomic-write.js';
import { forgetStaleOffsets, journalFiles, removeFolded } from '../lib/sqlite/journal-files.js';
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

/** Folds what the file holds past its offset; returns the events folded and where it stands. */
function foldFrom(
  db: SqliteDriver,
  path: string,
  name: string,
  start: Offset,
): { events: number; at: Offset } {
  const fd = openSync(path, 'r');
  const { target, saveOffset } = statements(db);
  const at = { ...start };
  let events = 0;
  try {
    let size = CHUNK_BYTES;
    for (;;) {
      // No more than the file holds past the offset: most files are a few hundred bytes, and a 4 MB
      // buffer zeroed for each was most of a fold's time (bench/history.mjs).
      const remaining = fstatSync(fd).size - at.offset;
      if (remaining <= 0) break;
      const buffer = Buffer.allocUnsafe(Math.min(size, remaining));
      const n = readSync(fd, buffer, 0, buffer.length, at.offset);
      if (n === 0) break;
      const end = buffer.subarray(0, n).lastIndexOf(0x0a);
      if (end < 0) {
        // A line longer than the chunk, or a torn tail: read more, or stop at the end of the file.
        if (at.offset + n >= fstatSync(fd).size) break;
        size *= 2;
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
      size = CHUNK_BYTES;
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

// Whether its process is gone is asked before the file is read, and the file is read to its size at
// that read (not a size looked at earlier): a process found gone has written all it ever will, so what
// is read is all there is, and the file may go once folded. Looked at the other way round, a writer
// that appended and then ended in between would lose what it appended.
function foldRows(db: SqliteDriver, dir: string, name: string, now: number): Folded {
  const path = join(dir, name);
  let mtimeMs: number;
  try {
    mtimeMs = statSync(path).mtimeMs;
  } catch {
    return { events: 0, finished: false }; // gone meanwhile
  }
  const gone = processGone(name, mtimeMs, now);
  const { events, at } = foldFrom(db, path, name, readOffset(db, name));
  const finished = gone || at.lastKind === 'end';
  if (finished && at.lastKind !== 'end') markUnended(db, at.run, mtimeMs);
  return { events, finished };
}

/** Files are folded in transactions of about this much journal each (a commit a file was slow). */
const BATCH_BYTES = 16 * 1024 * 1024;

function sizeOf(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
}

/** Folds every journal file (finished or not), oldest first; returns how many events were folded. */
export function foldJournal(db: SqliteDriver, dir: string, now = Date.now()): number {
  const names = journalFiles(dir, JOURNAL_NAME);
  let events = 0;
  // Small files are folded a batch at a time, each batch one transaction (their rows and offsets),
  // committed before any of them is removed: a kill at any point loses nothing and folds nothing
  // twice. A file larger than a batch is folded alone, a transaction a chunk (foldFrom).
  const sizes = names.map((name) => sizeOf(join(dir, name)));
  for (let i = 0; i < names.length; ) {
    const finished: string[] = [];
    const fold = (name: string) => {
      const folded = foldRows(db, dir, name, now);
      events += folded.events;
      if (folded.finished) finished.push(name);
    };
    if (sizes[i]! > BATCH_BYTES) fold(names[i++]!);
    else
      db.transaction(() => {
        let bytes = 0;
        while (i < names.length && sizes[i]! <= BATCH_BYTES && bytes + sizes[i]! <= BATCH_BYTES) {
          bytes += sizes[i]!;
          fold(names[i++]!);
        }
      });
    removeFolded(db, dir, finished);
  }
  forgetStaleOffsets(db, names);
  return events;
}
