// Reads a JSON Lines input on several cores: the main thread cuts the bytes into pieces of whole
// lines and deals them to worker threads (worker.ts), which check, encode and gzip; the batches come
// back to be spooled. Memory stays bounded: a worker has at most three pieces waiting. With no worker
// (one core, --workers 0, or the TypeScript sources, which have no worker script) the pieces are read
// the same way on this thread.

import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { DEFAULT_LINE_BYTES } from '../../api/limits.js';
import type { Project } from '../otlp/routing.js';
import type { BatchLimits } from './batches.js';
import { type PiecesBatch, PiecesReader } from './pieces-reader.js';
import { Problems } from './problems.js';
import type { FromWorker, ToWorker } from './worker.js';

// Small pieces, three deep: a worker's heap holds a piece's parsed objects, so 1 MB pieces keep peak
// memory ~10 MB lower than 2 MB ones, and a third piece waiting keeps the workers as busy.
const PIECE_BYTES = 1024 * 1024;
const PIECES_WAITING = 3;
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

interface WorkerSlot {
  worker: Worker;
  /** Pieces given to it and not yet read. */
  waiting: number;
}

function startWorkers(script: string, count: number): WorkerSlot[] {
  return Array.from({ length: count }, () => ({
    // Bounded heaps: a worker collects its garbage instead of growing (memory stays flat). A 12 MB
    // young generation (V8's default would grow to 48) takes ~30 MB off the peak of two workers at the
    // same throughput: the parsed spans of a piece die young either way.
    worker: new Worker(script, {
      resourceLimits: { maxOldGenerationSizeMb: 64, maxYoungGenerationSizeMb: 12 },
    }),
    waiting: 0,
  }));
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
  const longLine = Math.min(LONG_LINE_BYTES, maxLineBytes);
  const here = !options.script || options.workers < 1;
  const pool = here ? [] : startWorkers(options.script!, options.workers);
  const reader = here
    ? new PiecesReader({ limits: options.limits, project: options.project, maxLineBytes })
    : undefined;
  const took = (read: { batches: PiecesBatch[]; spans: number; documents: number }) => {
    for (const batch of read.batches) options.onBatch(batch);
    result.spans += read.spans;
    result.documents += read.documents;
    options.onProgress?.(result.spans);
  };
  let failure: unknown;
  let wake: (() => void) | undefined;
  const notify = () => {
    wake?.();
    wake = undefined;
  };
  const finished = pool.map(
    (slot) =>
      new Promise<void>((resolve) => {
        slot.worker.on('message', (message: FromWorker) => {
          took(message);
          if (message.type === 'progress') slot.waiting--;
          else {
            result.problems.merge(message.problems, message.problemCount);
            resolve();
          }
          notify();
        });
        slot.worker.on('error', (error) => {
          failure ??= error;
          resolve();
          notify();
        });
      }),
  );
  const send = (slot: WorkerSlot, message: ToWorker, transfer: ArrayBuffer[] = []) =>
    slot.worker.postMessage(message, transfer);
  for (const slot of pool)
    send(slot, { type: 'start', limits: options.limits, project: options.project, maxLineBytes });

  /**
   * Gives a piece to the least busy worker, waiting while every one has PIECES_WAITING (or reads it
   * here). The piece's memory moves to the worker (it must be the only thing in its ArrayBuffer).
   */
  const dispatch = async (bytes: Buffer, firstLine: number) => {
    if (reader) {
      reader.piece(bytes, firstLine);
      took(reader.take());
      return;
    }
    for (;;) {
      if (failure) throw failure;
      const slot = pool.reduce((a, b) => (b.waiting < a.waiting ? b : a));
      if (slot.waiting < PIECES_WAITING) {
        slot.waiting++;
        send(slot, { type: 'piece', bytes, firstLine }, [bytes.buffer as ArrayBuffer]);
        return;
      }
      await new Promise<void>((resolve) => {
        wake = resolve;
      });
    }
  };

  try {
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
        // A line too long for a piece: the rest is the caller's, from the start of this line.
        async function* rest(): AsyncGenerator<Buffer> {
          yield joined;
          for (;;) {
            const more = await iterator.next();
            if (more.done) return;
            yield more.value;
          }
        }
        result.rest = { input: rest(), line };
        pendingBytes = 0;
        pending = [];
        break;
      }
      // The rest is copied out first: the piece takes the whole buffer with it.
      pending = [Buffer.from(joined.subarray(cut + 1))];
      pendingBytes = pending[0]!.length;
      const piece = joined.subarray(0, cut + 1);
      const lines = countNewlines(piece);
      await dispatch(piece, line);
      line += lines;
    }
    if (pendingBytes > 0) await dispatch(ownBuffer(Buffer.concat(pending)), line);
    if (reader) {
      reader.finish();
      took(reader.take());
      result.problems.merge(reader.problems.list, reader.problems.count);
    }
    for (const slot of pool) send(slot, { type: 'finish' });
    await Promise.all(finished);
    if (failure) throw failure;
  } finally {
    await Promise.all(pool.map((slot) => slot.worker.terminate()));
  }
  return result;
}
