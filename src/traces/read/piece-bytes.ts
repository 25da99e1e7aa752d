// Where the pieces of a JSON Lines input are cut from (parallel.ts): buffers used again once a piece
// has been read, filled straight from the file where there is one.
//
// Why: a fresh 1 MB buffer costs the kernel 256 page faults the first time it is written, and a file
// stream makes one for every chunk it reads. Measured on a 260 MB file: reading it through a stream
// took 370 ms of CPU (330 in the kernel), into one buffer used again 24 ms; joining each chunk to the
// end of the last line (Buffer.concat, again into fresh memory) took 400 ms more. A piece's buffer goes
// to a worker and comes back with its results (worker-pool.ts), so a send touches only a few of them.

import { closeSync, fstatSync, openSync, read, type Stats } from 'node:fs';
import { promisify } from 'node:util';
import { InterruptedError } from '../../errors/errors.js';

const readAsync = promisify(read);

/** Buffers of one size, kept for use again; each its own ArrayBuffer (so it can move to a worker). */
export class PieceBuffers {
  private readonly free: ArrayBuffer[] = [];

  constructor(
    readonly size: number,
    /** Enough for every piece in flight at once: more would only hold memory. */
    private readonly keep = 16,
  ) {}

  take(): Buffer {
    const kept = this.free.pop();
    return kept ? Buffer.from(kept) : Buffer.allocUnsafeSlow(this.size);
  }

  /** A buffer back, once nothing reads it any more; one of another size (grown for a long line) is let go. */
  give(buffer: ArrayBuffer): void {
    if (buffer.byteLength === this.size && this.free.length < this.keep) this.free.push(buffer);
  }
}

/** Bytes read into a buffer the reader gives, so that the reader decides which memory they land in. */
export interface ByteSource {
  /** Reads into `target` from `offset` on; 0 at the end. */
  readInto(target: Buffer, offset: number): Promise<number>;
  /** What is left, as chunks of their own (for the main thread's reader of long lines). */
  remaining(): AsyncIterable<Buffer>;
  /** Lets the file go, whether it was read to the end or not. */
  close(): void;
}

/** A stream's chunks, copied into the reader's buffers. */
export function streamBytes(input: AsyncIterable<Buffer>): ByteSource {
  const iterator = input[Symbol.asyncIterator]();
  let chunk: Buffer | undefined;
  let at = 0;
  return {
    async readInto(target, offset) {
      while (!chunk || at === chunk.length) {
        const next = await iterator.next();
        if (next.done) return 0;
        chunk = next.value;
        at = 0;
      }
      const n = chunk.copy(target, offset, at);
      at += n;
      return n;
    },
    async *remaining() {
      if (chunk && at < chunk.length) yield chunk.subarray(at);
      chunk = undefined;
      for (;;) {
        const next = await iterator.next();
        if (next.done) return;
        yield next.value;
      }
    },
    close() {},
  };
}

/**
 * A regular file read straight into the reader's buffers: `head` first (the bytes already read to
 * tell its format), then the file from there on. Undefined when the path no longer names the file
 * `stat` describes (replaced since it was opened): the caller reads the stream it has instead.
 */
export function fileBytes(
  path: string,
  stat: Pick<Stats, 'dev' | 'ino'>,
  head: Buffer,
  signal: AbortSignal | undefined,
): ByteSource | undefined {
  let fd: number | undefined;
  try {
    fd = openSync(path, 'r');
    const now = fstatSync(fd);
    if (now.dev !== stat.dev || now.ino !== stat.ino) throw new Error('replaced');
  } catch {
    if (fd !== undefined) closeSync(fd);
    return undefined;
  }
  const file = fd;
  let position = head.length;
  let headAt = 0;
  let closed = false;
  const readMore = async (target: Buffer, offset: number, length: number): Promise<number> => {
    if (signal?.aborted) throw new InterruptedError();
    const { bytesRead } = await readAsync(file, target, offset, length, position);
    position += bytesRead;
    return bytesRead;
  };
  return {
    async readInto(target, offset) {
      if (headAt < head.length) {
        const n = head.copy(target, offset, headAt);
        headAt += n;
        return n;
      }
      return readMore(target, offset, target.length - offset);
    },
    async *remaining() {
      if (headAt < head.length) yield head.subarray(headAt);
      headAt = head.length;
      for (;;) {
        const chunk = Buffer.allocUnsafe(1 << 20);
        const n = await readMore(chunk, 0, chunk.length);
        if (n === 0) return;
        yield chunk.subarray(0, n);
      }
    },
    close() {
      if (closed) return;
      closed = true;
      closeSync(file);
    },
  };
}
