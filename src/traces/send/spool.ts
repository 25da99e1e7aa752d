// Where encoded batches wait between reading the input and sending it: nothing is sent until the
// whole input has been read and found valid, yet memory must not grow with the input. Batches stay in
// memory up to a limit, then go to a temporary file (mode 0600, in a 0700 directory of its own under
// the OS temporary directory, removed when done, Ctrl-C and errors included). A process killed with
// SIGKILL cannot remove it: the directory is named after the process (aip-traces-<pid>-XXXXXX), and
// the next spool made on this machine removes those of processes that are gone.
//
// A spool that cannot write (a full disk or quota where TMPDIR is, a read-only or unwritable TMPDIR)
// never throws into the reader that feeds it (a worker's message handler has no one to catch it): it
// removes what it wrote, keeps the error (`failure`), drops the batches that follow, and tells those
// watching (onSpoolFailure), so that `traces send` stops reading and says so, having sent nothing.

import {
  closeSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readSync,
  rmSync,
  statSync,
  writeSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isProcessAlive } from '../../fs/atomic-write.js';
import { fsErrorCode, writeError } from '../../fs/write-error.js';

const IN_MEMORY_LIMIT = 8 * 1024 * 1024;
const PREFIX = 'aip-traces-';

/**
 * Removes the spool directories of aip processes that died without removing them (kill -9, a power
 * cut): this user's, whose process is gone. Never throws.
 */
export function removeStaleSpools(dir = tmpdir()): void {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  const uid = process.getuid?.();
  for (const name of names) {
    if (!name.startsWith(PREFIX)) continue;
    const pid = Number(/^(\d+)-[^-]{6}$/.exec(name.slice(PREFIX.length))?.[1]);
    if (!pid || pid === process.pid || isProcessAlive(pid)) continue;
    try {
      const path = join(dir, name);
      if (uid !== undefined && statSync(path).uid !== uid) continue;
      rmSync(path, { recursive: true, force: true });
    } catch {
      // not ours to remove, or gone already
    }
  }
}

/** Why a spool could not write, in one line: the directory, what failed, what to do. */
export function spoolError(error: unknown, dir = tmpdir()): unknown {
  const code = fsErrorCode(error);
  const room = code === 'ENOSPC' || code === 'EDQUOT';
  return writeError(`the traces spool in ${dir}`, error, {
    advice: room
      ? 'free some space there, or set TMPDIR to a directory with room, and try again'
      : 'set TMPDIR to a directory aip can write, and try again',
    outcome: 'nothing was sent',
  });
}

const watchers = new Set<(error: unknown) => void>();

/** Calls `listener` when a spool of this process cannot write; returns what stops the watching. */
export function onSpoolFailure(listener: (error: unknown) => void): () => void {
  watchers.add(listener);
  return () => watchers.delete(listener);
}

interface Slot {
  bytes?: Uint8Array;
  offset: number;
  length: number;
}

export class Spool {
  private slots: Slot[] = [];
  private inMemory = 0;
  private fd: number | undefined;
  private dir: string | undefined;
  private fileSize = 0;

  constructor(private readonly memoryLimit = IN_MEMORY_LIMIT) {
    removeStaleSpools();
  }

  /** The error that stopped the spool writing (the one-line error spoolError makes), if one did. */
  failure: unknown;

  /** Stores a batch; returns its index. Once the spool has failed, batches are dropped. */
  put(bytes: Uint8Array): number {
    if (this.failure !== undefined) {
      this.slots.push({ offset: 0, length: 0 });
    } else if (this.inMemory + bytes.length <= this.memoryLimit) {
      this.inMemory += bytes.length;
      this.slots.push({ bytes, offset: 0, length: bytes.length });
    } else {
      try {
        if (this.fd === undefined) {
          this.dir = mkdtempSync(join(tmpdir(), `${PREFIX}${process.pid}-`));
          // However the process ends (an error nobody caught, process.exit), the file goes with it.
          process.once('exit', this.removeOnExit);
          this.fd = openSync(join(this.dir, 'batches'), 'w+', 0o600);
        }
        for (let at = 0; at < bytes.length; )
          at += writeSync(this.fd, bytes, at, bytes.length - at, this.fileSize + at);
        this.slots.push({ offset: this.fileSize, length: bytes.length });
        this.fileSize += bytes.length;
      } catch (error) {
        this.fail(error);
        this.slots.push({ offset: 0, length: 0 });
      }
    }
    return this.slots.length - 1;
  }

  /** Keeps the error, gives the disk its space back and the memory its batches, and says so. */
  private fail(error: unknown): void {
    this.failure = spoolError(error);
    this.close();
    for (const watcher of [...watchers]) watcher(this.failure);
  }

  get(index: number): Uint8Array {
    if (this.failure !== undefined) throw this.failure;
    const slot = this.slots[index]!;
    if (slot.bytes) return slot.bytes;
    const bytes = Buffer.allocUnsafe(slot.length);
    readSync(this.fd!, bytes, 0, slot.length, slot.offset);
    return bytes;
  }

  /** Lets a sent batch go. */
  release(index: number): void {
    const slot = this.slots[index];
    if (slot?.bytes) {
      this.inMemory -= slot.bytes.length;
      slot.bytes = undefined;
    }
  }

  get onDisk(): number {
    return this.fileSize;
  }

  private readonly removeOnExit = () => {
    if (this.dir) rmSync(this.dir, { recursive: true, force: true });
  };

  close(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    if (this.dir) rmSync(this.dir, { recursive: true, force: true });
    process.off('exit', this.removeOnExit);
    this.fd = undefined;
    this.dir = undefined;
    this.slots = [];
  }
}
