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
import { type ByteSource, PieceBuffers } from './piece-bytes.js';
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
  /** Some reader has said it found a problem (before the list of them comes, at the end). */
  problemFound: boolean;
  /**
   * Where the workers stopped: a line too long for a piece (a worker would have to hold all of it).
   * The caller reads the rest, from that line on, on its own thread, where long lines are scanned.
   */
  rest?: { input: AsyncIterable<Buffer>; line: number };
}

/** A line longer than this (or than the line limit) is not dealt to a worker. */
const LONG_LINE_BYTES = 8 * 1024 * 1024;

function countNewlines(bytes: Buffer, end: number): number {
  let n = 0;
  for (let i = bytes.indexOf(10); i !== -1 && i < end; i = bytes.indexOf(10, i + 1)) n++;
  return n;
}

export async function readJsonLinesParallel(
  input: ByteSource,
  options: {
    /** The worker script; none (or no workers) reads on this thread. */
    script: string | undefined;
    workers: number;
    limits: BatchLimits;
    project: Project | undefined;
    /** The line limit: a line longer than it is read on this thread, where it is scanned value by value. */
    maxLineBytes?: number;
    /** A batch made; `problemFound` once any reader has found a problem (its batch may hold spans after it). */
    onBatch: (batch: PiecesBatch, problemFound: boolean) => void;
    onProgress?: (spans: number) => void;
  },
): Promise<ParallelResult> {
  const result: ParallelResult = { spans: 0, documents: 0, problems: new Problems(), problemFound: false };
  const maxLineBytes = options.maxLineBytes ?? DEFAULT_LINE_BYTES;
  const settings: PiecesSettings = { limits: options.limits, project: options.project, maxLineBytes };
  const results: PieceResults = {
    took: (read) => {
      if (read.problemsSoFar > 0) result.problemFound = true;
      for (const batch of read.batches) options.onBatch(batch, result.problemFound);
      result.spans += read.spans;
      result.documents += read.documents;
      options.onProgress?.(result.spans);
    },
    merge: (list, count) => result.problems.merge(list, count),
  };
  const buffers = new PieceBuffers(PIECE_BYTES);
  const readers =
    !options.script || options.workers < 1
      ? readHere(settings, results, buffers)
      : new WorkerPool(options.script, options.workers, settings, results, buffers);
  try {
    const longLine = Math.min(LONG_LINE_BYTES, maxLineBytes);
    const rest = await cutIntoPieces(input, buffers, longLine, (piece, length, firstLine) =>
      readers.read(piece, length, firstLine),
    );
    if (rest) result.rest = rest;
    await readers.finish();
  } finally {
    await readers.close();
  }
  return result;
}

/** With no workers: each piece read on this thread as it is cut. */
function readHere(settings: PiecesSettings, results: PieceResults, buffers: PieceBuffers): PieceReaders {
  const reader = new PiecesReader(settings);
  return {
    read: async (buffer, length, firstLine) => {
      reader.piece(buffer.subarray(0, length), firstLine);
      results.took(reader.take());
      buffers.give(buffer.buffer as ArrayBuffer);
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
 * Cuts the input into pieces of whole lines, of PIECE_BYTES or a little less, and reads each with the
 * number of its first line, one after the other: `read` is given a buffer of its own (it may move to a
 * worker) and how much of it is the piece. At a line too long for a piece (`longLine` bytes with no
 * newline) it stops, and returns the rest of the input from the start of that line.
 */
async function cutIntoPieces(
  input: ByteSource,
  buffers: PieceBuffers,
  longLine: number,
  read: (buffer: Buffer, length: number, firstLine: number) => Promise<void>,
): Promise<ParallelResult['rest']> {
  let buffer = buffers.take();
  let fill = 0;
  let line = 1;
  for (;;) {
    const n = await input.readInto(buffer, fill);
    if (n === 0) break;
    fill += n;
    if (fill < buffer.length) continue;
    const cut = buffer.lastIndexOf(10, fill - 1);
    if (cut === -1) {
      // No line ends in it: a long line, read on this thread from its start, or a bigger buffer.
      if (fill >= longLine) return { input: restOf(buffer.subarray(0, fill), input), line };
      buffer = grown(buffer, buffers);
      continue;
    }
    // The start of the next piece's first line is copied out first: the piece takes the buffer with it.
    const tail = fill - (cut + 1);
    const next = tail < buffers.size ? buffers.take() : Buffer.allocUnsafeSlow(tail * 2);
    buffer.copy(next, 0, cut + 1, fill);
    const lines = countNewlines(buffer, cut + 1);
    await read(buffer, cut + 1, line);
    line += lines;
    buffer = next;
    fill = tail;
  }
  if (fill > 0) await read(buffer, fill, line);
  else buffers.give(buffer.buffer as ArrayBuffer);
  return undefined;
}

/** A buffer twice the size, holding what the full one held; the full one goes back to be used again. */
function grown(full: Buffer, buffers: PieceBuffers): Buffer {
  const bigger = Buffer.allocUnsafeSlow(full.length * 2);
  full.copy(bigger);
  buffers.give(full.buffer as ArrayBuffer);
  return bigger;
}

/** The input from the start of a line too long for a piece: that line's bytes so far, then the rest. */
async function* restOf(first: Buffer, input: ByteSource): AsyncGenerator<Buffer> {
  yield first;
  yield* input.remaining();
}
