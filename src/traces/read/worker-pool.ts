// The worker threads a large JSON Lines input is read on (parallel.ts cuts it into pieces): each piece
// goes to the least busy worker, what the workers send back is handed on as it comes, and the first
// worker to fail stops the reading. Memory stays bounded: a worker has at most PIECES_WAITING pieces.

import { Worker } from 'node:worker_threads';
import type { Problem } from '../../validate/check-file.js';
import type { PieceBuffers } from './piece-bytes.js';
import type { PiecesBatch, PiecesSettings } from './pieces-reader.js';
import type { FromWorker, ToWorker } from './worker.js';

// Three deep: with pieces as small as parallel.ts cuts them (it says why), a third one waiting keeps
// the workers as busy as larger pieces would.
const PIECES_WAITING = 3;

/** What reading a piece gave: batches to spool, and the spans and documents in them. */
export interface PiecesRead {
  batches: PiecesBatch[];
  spans: number;
  documents: number;
  /** Problems this reader has found so far (the list comes at the end). */
  problemsSoFar: number;
}

/** Where the readers' results go, in the order they come. */
export interface PieceResults {
  took(read: PiecesRead): void;
  merge(problems: Problem[], count: number): void;
}

/** Where pieces are read: on worker threads, or on this thread. */
export interface PieceReaders {
  /**
   * Reads a piece of whole lines (the first `length` bytes of `buffer`), or hands it to a worker
   * (waiting while every one is busy). The buffer is the reader's until it is given back to the pool.
   */
  read(buffer: Buffer, length: number, firstLine: number): Promise<void>;
  /** Reads what is left and waits for every result; a worker's failure is thrown here. */
  finish(): Promise<void>;
  /** Lets the workers go, whether the reading finished or not. */
  close(): Promise<void>;
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

function send(slot: WorkerSlot, message: ToWorker, transfer: ArrayBuffer[] = []): void {
  slot.worker.postMessage(message, transfer);
}

export class WorkerPool implements PieceReaders {
  private readonly slots: WorkerSlot[];
  /** One per worker: settled when it has sent its last results, or failed. */
  private readonly finished: Promise<void>[];
  /** The first worker's error: no piece is given out after it, and finish() throws it. */
  private failure: unknown;
  /** Wakes a read() waiting for a worker with room. */
  private wake: (() => void) | undefined;

  constructor(
    script: string,
    count: number,
    settings: PiecesSettings,
    private readonly results: PieceResults,
    /** Where a piece's buffer goes once its worker has read it and sent it back. */
    private readonly buffers: PieceBuffers,
  ) {
    this.slots = startWorkers(script, count);
    this.finished = this.slots.map((slot) => this.listen(slot));
    for (const slot of this.slots) send(slot, { type: 'start', ...settings });
  }

  /**
   * Gives a piece to the least busy worker, waiting while every one has PIECES_WAITING. The piece's
   * memory moves to the worker (it must be the only thing in its ArrayBuffer), and back with its results.
   */
  async read(buffer: Buffer, length: number, firstLine: number): Promise<void> {
    for (;;) {
      if (this.failure) throw this.failure;
      const slot = this.slots.reduce((a, b) => (b.waiting < a.waiting ? b : a));
      if (slot.waiting < PIECES_WAITING) {
        slot.waiting++;
        const memory = buffer.buffer as ArrayBuffer;
        send(slot, { type: 'piece', buffer: memory, length, firstLine }, [memory]);
        return;
      }
      await new Promise<void>((resolve) => {
        this.wake = resolve;
      });
    }
  }

  async finish(): Promise<void> {
    for (const slot of this.slots) send(slot, { type: 'finish' });
    await Promise.all(this.finished);
    if (this.failure) throw this.failure;
  }

  async close(): Promise<void> {
    await Promise.all(this.slots.map((slot) => slot.worker.terminate()));
  }

  /** Hands on a worker's results as they come; settles when it is done or has failed. */
  private listen(slot: WorkerSlot): Promise<void> {
    return new Promise<void>((resolve) => {
      slot.worker.on('message', (message: FromWorker) => {
        this.results.took(message);
        if (message.type === 'progress') {
          slot.waiting--;
          this.buffers.give(message.buffer);
        } else {
          this.results.merge(message.problems, message.problemCount);
          resolve();
        }
        this.notify();
      });
      slot.worker.on('error', (error) => {
        this.failed(error);
        resolve();
        this.notify();
      });
    });
  }

  /** The first error is the one reported: a worker that fails after another only stops too. */
  private failed(error: unknown): void {
    this.failure ??= error;
  }

  private notify(): void {
    this.wake?.();
    this.wake = undefined;
  }
}
