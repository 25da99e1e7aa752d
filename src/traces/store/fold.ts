// Folding the tee's journal (writer.ts: one file a writer, framed records) into traces.db. Each file is
// read from where the last fold stopped (journal_offsets) up to its last whole record, and what is
// read is written in one transaction with the offset reached: a fold killed at any moment leaves all
// of a batch or none of it, and the next fold goes on from the last commit: nothing twice, nothing
// lost. A span already kept (the same trace and span id) is not kept again.
//
// A file is finished, and removed once folded, when its last record is the end mark, or its writer is
// gone (this machine's, by the host tag in its name, and no process has its pid), or, from another
// machine, it has not changed for STALE_ELSEWHERE_MS. A torn tail is never folded; a finished file's
// goes with it.

import { closeSync, openSync, readSync, statSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { isProcessAlive } from '../../fs/atomic-write.js';
import { journalHostTag } from '../../history/paths.js';
import { forgetStaleOffsets, journalFiles, removeFolded } from '../../lib/sqlite/journal-files.js';
import type { SqliteDriver, SqliteStatement } from '../../lib/sqlite/sqlite-driver.js';
import { claimedLength, frameAt } from './framing.js';
import { JOURNAL_NAME } from './paths.js';
import { rowsOfRequest, type SpanRow } from './rows.js';

/** A file from another machine unchanged this long is taken as finished. */
export const STALE_ELSEWHERE_MS = 24 * 3600 * 1000;
/** Read this much of a file at a time, each window one transaction (more for a larger record). */
const CHUNK_BYTES = 4 * 1024 * 1024;

const COLUMNS = [
  'trace_id',
  'span_id',
  'parent_id',
  'name',
  'kind',
  'start_ns',
  'end_ns',
  'start_ms',
  'duration_ns',
  'status_code',
  'status_message',
  'project',
  'service',
  'request_model',
  'response_model',
  'input_tokens',
  'output_tokens',
  'operation',
  'tool',
  'detail',
  'resource',
] as const satisfies ReadonlyArray<keyof SpanRow>;

interface Statements {
  insert: SqliteStatement;
  readOffset: SqliteStatement;
  saveOffset: SqliteStatement;
}

function prepare(db: SqliteDriver): Statements {
  return {
    insert: db.prepare(
      `INSERT OR IGNORE INTO spans (${COLUMNS.join(', ')}, bytes) VALUES (${COLUMNS.map(() => '?').join(', ')}, ?)`,
    ),
    readOffset: db.prepare('SELECT offset FROM journal_offsets WHERE file = ?'),
    saveOffset: db.prepare('INSERT OR REPLACE INTO journal_offsets (file, offset) VALUES (?, ?)'),
  };
}

/** Whether the file's writer can no longer write to it (asked before it is read, so nothing is missed). */
function writerGone(name: string, mtimeMs: number, now: number): boolean {
  const match = JOURNAL_NAME.exec(name)!;
  const pid = Number(match[2]);
  if (match[3] !== journalHostTag(hostname())) return now - mtimeMs > STALE_ELSEWHERE_MS;
  // This process's own pid: a writer in this very process (a test) is running; a file of a container's
  // earlier pid 1 would wait until another process folds it.
  return pid !== process.pid && !isProcessAlive(pid);
}

function insertRows(s: Statements, payload: Buffer): number {
  let rows: SpanRow[];
  try {
    rows = rowsOfRequest(payload);
  } catch {
    return 0; // whole and checked, yet not a request: not written by aip's tee, nothing to keep
  }
  for (const row of rows) {
    const detailBytes = row.detail.length + row.resource.length;
    s.insert.run(...COLUMNS.map((c) => row[c]), detailBytes);
  }
  return rows.length;
}

interface Reached {
  offset: number;
  ended: boolean;
  spans: number;
}

/** Reads the window at `offset`: the records in it folded, one transaction with the offset reached. */
function foldWindow(db: SqliteDriver, s: Statements, name: string, buffer: Buffer, at: Reached): boolean {
  let pos = 0;
  db.transaction(() => {
    while (pos < buffer.length && !at.ended) {
      const frame = frameAt(buffer, pos);
      if (frame.kind === 'partial') break;
      if (frame.kind === 'skip') pos = frame.next;
      else if (frame.kind === 'end') {
        pos = frame.end;
        at.ended = true;
      } else {
        at.spans += insertRows(s, frame.payload);
        pos = frame.end;
      }
    }
    if (pos > 0) s.saveOffset.run(name, at.offset + pos);
  });
  at.offset += pos;
  return pos > 0;
}

/** Folds what the file held past its offset when looked at (`size`). */
function foldFile(db: SqliteDriver, s: Statements, path: string, name: string, size: number): Reached {
  const at: Reached = { offset: Number(s.readOffset.get(name)?.offset ?? 0), ended: false, spans: 0 };
  const fd = openSync(path, 'r');
  try {
    let chunk = CHUNK_BYTES;
    while (at.offset < size && !at.ended) {
      const buffer = Buffer.allocUnsafe(Math.min(chunk, size - at.offset));
      const n = readSync(fd, buffer, 0, buffer.length, at.offset);
      if (n === 0) break;
      const window = buffer.subarray(0, n);
      if (foldWindow(db, s, name, window, at)) {
        chunk = CHUNK_BYTES;
        continue;
      }
      // Nothing whole in the window: a record larger than it (read it whole), or a torn tail.
      const needed = claimedLength(window, 0);
      if (needed !== undefined && needed > n && at.offset + needed <= size) chunk = needed;
      else break;
    }
  } finally {
    closeSync(fd);
  }
  return at;
}

type Stat = { size: number; mtimeMs: number };

function statOf(path: string): Stat | undefined {
  try {
    const { size, mtimeMs } = statSync(path);
    return { size, mtimeMs };
  } catch {
    return undefined;
  }
}

/** Folds every journal file in `dir`, oldest first; returns how many spans were read (kept or not). */
export function foldTraceJournal(db: SqliteDriver, dir: string, now = Date.now()): number {
  const names = journalFiles(dir, JOURNAL_NAME);
  const s = prepare(db);
  let spans = 0;
  const finished: string[] = [];
  for (const name of names) {
    const path = join(dir, name);
    const seen = statOf(path);
    if (!seen) continue;
    // Whether its writer is gone is decided before the size to read to is taken: a writer found gone
    // has written all it ever will. The other way round, one that appended and then ended in between
    // would have its last records cut off, and its file removed with them (the history's fold met it).
    const gone = writerGone(name, seen.mtimeMs, now);
    const size = statOf(path)?.size ?? seen.size;
    let reached: Reached;
    try {
      reached = foldFile(db, s, path, name, size);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') continue; // removed meanwhile
      throw error;
    }
    spans += reached.spans;
    if (reached.ended || gone) finished.push(name);
  }
  // Removed after their rows are committed, then their offsets (lib/sqlite/journal-files.ts).
  removeFolded(db, dir, finished);
  forgetStaleOffsets(db, names);
  return spans;
}
