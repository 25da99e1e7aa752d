// Reads a JSON Lines input on several cores: the main thread cuts the bytes into pieces of whole
// lines and deals them to worker threads (worker.ts), which check, encode and gzip; the batches come
// back to be spooled. Memory stays bounded: a worker has at most three pieces waiting. With no worker
// (one core, --workers 0, or the TypeScript sources, which have no worker script) the pieces are read
// the same way on this thread.

import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { DEFAULT_LINE_BYTES } from '../../api/limits.js';
import type { Project } from '../otlp/routing.js';
import type { BatchLimits } from './batches.js';
import { type PiecesBatch, PiecesReader, type PiecesSettings } from './pieces-reader.js';
import { Problems } from './problems.js';
import { type PieceReaders, type PieceResults, WorkerPool } from './worker-pool.js';

// Small pieces: a worker's heap holds a piece's parsed objects, so 1 MB pieces keep peak memory
// ~10 MB lower than 2 MB ones (worker-pool.ts keeps three waiting per worker).
const PIECE_BYTES = 1024 * 1024;
const MAX_WORKERS = 4;

/**
 * The worker script, when aip runs from its bundle (dist/traces-worker.js, beside the chunks'
 * directory); from the TypeScript sources (tests) there is none, and reading stays on one thread.
 */
export function workerScript(): string | undefined {
  for (const relative of ['../traces-worker.js', './traces-worker.js']) {
    const path = fileURLToPath(new URL(relative, import.meta.url));
    if (existsSync(path)) return path;
  }
  return undefined;
}

/** How many workers to use: one per core, within reason; none on a single core. */
export function workerCount(): number {
  const cores = availableParallelism();
  return cores < 2 ? 0 : Math.min(cores, MAX_WORKERS);
}

export interface ParallelResult {
  spans: number;
  documents: number;
  problems: Problems;
  /**
   * Where the workers stopped: a line too long for a piece (a worker would have to hold all of it).
   * The caller reads the rest, from that line on, on its own thread, where long lines are scanned.
   */
  rest?: { input: AsyncIterable<Buffer>; line: number };
}

/** A line longer than this (or than the line limit) is not dealt to a worker. */
const LONG_LINE_BYTES = 8 * 1024 * 1024;

/** The bytes in an ArrayBuffer of their own (small buffers share Node's pool). */
function ownBuffer(bytes: Buffer): Buffer {
  if (bytes.byteOffset === 0 && bytes.buffer.byteLength === bytes.length) return bytes;
  const own = Buffer.allocUnsafeSlow(bytes.length);
  bytes.copy(own);
  return own;
}

function countNewlines(bytes: Buffer): number {
  let n = 0;
  for (let i = bytes.indexOf(10); i !== -1; i = bytes.indexOf(10, i + 1)) n++;
  return n;
}

export async function readJsonLinesParallel(
  input: AsyncIterable<Buffer>,
  options: {
    /** The worker script; none (or no workers) reads on this thread. */
    script: string | undefined;
    workers: number;
    limits: BatchLimits;
    project: Project | undefined;
    /** The line limit: a line longer than it is read on this thread, where it is scanned value by value. */
    maxLineBytes?: number;
    onBatch: (batch: PiecesBatch) => void;
    onProgress?: (spans: number) => void;
  },
): Promise<ParallelResult> {
  const result: ParallelResult = { spans: 0, documents: 0, problems: new Problems() };
  const maxLineBytes = options.maxLineBytes ?? DEFAULT_LINE_BYTES;
  const settings: PiecesSettings = { limits: options.limits, project: options.project, maxLineBytes };
  const results: PieceResults = {
    took: (read) => {
      for (const batch of read.batches) options.onBatch(batch);
      result.spans += read.spans;
      result.documents += read.documents;
      options.onProgress?.(result.spans);
    },
    merge: (list, count) => result.problems.merge(list, count),
  };
  const readers =
    !options.script || options.workers < 1
      ? readHere(settings, results)
      : new WorkerPool(options.script, options.workers, settings, results);
  try {
    const longLine = Math.min(LONG_LINE_BYTES, maxLineBytes);
    const rest = await cutIntoPieces(input, longLine, (piece, firstLine) => readers.read(piece, firstLine));
    if (rest) result.rest = rest;
    await readers.finish();
  } finally {
    await readers.close();
  }
  return result;
}

/** With no workers: each piece read on this thread as it is cut. */
function readHere(settings: PiecesSettings, results: PieceResults): PieceReaders {
  const reader = new PiecesReader(settings);
  return {
    read: async (bytes, firstLine) => {
      reader.piece(bytes, firstLine);
      results.took(reader.take());
    },
    finish: async () => {
      reader.finish();
      results.took(reader.take());
      results.merge(reader.problems.list, reader.problems.count);
    },
    close: async () => {},
  };
}

/**
 * Cuts the input into pieces of whole lines, of PIECE_BYTES or a little more, and reads each with the
 * number of its first line, one after the other. At a line too long for a piece (`longLine` bytes with
 * no newline) it stops, and returns the rest of the input from the start of that line.
 */
async function cutIntoPieces(
  input: AsyncIterable<Buffer>,
  longLine: number,
  read: (piece: Buffer, firstLine: number) => Promise<void>,
): Promise<ParallelResult['rest']> {
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let line = 1;
  const iterator = input[Symbol.asyncIterator]();
  for (;;) {
    const next = await iterator.next();
    if (next.done) break;
    pending.push(next.value);
    pendingBytes += next.value.length;
    if (pendingBytes < PIECE_BYTES) continue;
    const joined = ownBuffer(Buffer.concat(pending));
    const cut = joined.lastIndexOf(10);
    if (cut === -1) {
      pending = [joined];
      if (joined.length < longLine) continue;
      return { input: restOf(joined, iterator), line };
    }
    // The rest is copied out first: the piece takes the whole buffer with it.
    pending = [Buffer.from(joined.subarray(cut + 1))];
    pendingBytes = pending[0]!.length;
    const piece = joined.subarray(0, cut + 1);
    const lines = countNewlines(piece);
    await read(piece, line);
    line += lines;
  }
  if (pendingBytes > 0) await read(ownBuffer(Buffer.concat(pending)), line);
  return undefined;
}

/** The input from the start of a line too long for a piece: that line's bytes so far, then the rest. */
async function* restOf(first: Buffer, iterator: AsyncIterator<Buffer>): AsyncGenerator<Buffer> {
  yield first;
  for (;;) {
    const more = await iterator.next();
    if (more.done) return;
    yield more.value;
  }
}
