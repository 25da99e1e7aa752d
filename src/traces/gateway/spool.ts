// The gateway's disk spool: batches the platform could not take yet, kept so that a span acknowledged
// to the SDK is never lost. Each batch is one file (gzipped OTLP protobuf, routed and redacted as it
// would have been sent), written whole and fsynced, directory included, before the SDK hears "ok"
// (fs/atomic-write.ts), so a kill -9 or a power cut after the answer keeps it. They are sent oldest
// first, by the gateway when the platform is back, on its next start, or by `aip traces flush`.
//
// One process owns the spool at a time (fs/owner-lock.ts): two senders of one file would send it
// twice. Bounded: past `maxBytes`, a new batch is not taken, and the SDK is told to retry later (503):
// what was acknowledged stays, what was not is the SDK's to keep or drop.

import { readdirSync, readFileSync, statSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { CliError } from '../../errors/errors.js';
import { writeFileAtomic } from '../../fs/atomic-write.js';
import { claimOwner, type OwnerLock } from '../../fs/owner-lock.js';
import { ensurePrivateDir } from '../../fs/private-dir.js';

/** `<ms>-<seq>-<spans>.otlp.gz`: sorted by name within a millisecond by its sequence number. */
const BATCH_NAME = /^(\d+)-(\d+)-(\d+)\.otlp\.gz$/;

export interface SpooledFile {
  name: string;
  spans: number;
  bytes: number;
}

export const DEFAULT_SPOOL_BYTES = 512 * 1024 * 1024;

function byAge(a: SpooledFile, b: SpooledFile): number {
  const [, am, as] = BATCH_NAME.exec(a.name)!;
  const [, bm, bs] = BATCH_NAME.exec(b.name)!;
  return Number(am) - Number(bm) || Number(as) - Number(bs);
}

export class DiskSpool {
  private files: SpooledFile[] = [];
  /** Batches deferred (see defer), by name: a Map, the names being the disk's. */
  private strikes = new Map<string, number>();
  private total = 0;
  private seq = 0;

  private constructor(
    readonly dir: string,
    readonly maxBytes: number,
    private readonly lock: OwnerLock,
  ) {}

  /** Takes the spool directory for this process, or says who has it. */
  static open(dir: string, maxBytes = DEFAULT_SPOOL_BYTES): DiskSpool {
    ensurePrivateDir(dir);
    const claim = claimOwner(dir, { elsewhere: 'leave' });
    if ('busy' in claim)
      throw new CliError(
        `the trace spool ${dir} belongs to another aip (pid ${claim.busy.label}), which sends it itself`,
        { hint: 'one `aip traces serve` or `aip traces flush` at a time uses a spool' },
      );
    const spool = new DiskSpool(dir, maxBytes, claim.held);
    spool.load();
    return spool;
  }

  private load(): void {
    for (const name of readdirSync(this.dir)) {
      // A batch being written when its process was killed: never acknowledged, never complete.
      if (name.startsWith('.') && name.endsWith('.tmp')) {
        try {
          unlinkSync(join(this.dir, name));
        } catch {
          // gone already
        }
        continue;
      }
      const match = BATCH_NAME.exec(name);
      if (!match) continue;
      const bytes = statSync(join(this.dir, name)).size;
      this.files.push({ name, spans: Number(match[3]), bytes });
      this.total += bytes;
    }
    this.files.sort(byAge);
  }

  get count(): number {
    return this.files.length;
  }

  get spans(): number {
    return this.files.reduce((n, f) => n + f.spans, 0);
  }

  get bytes(): number {
    return this.total;
  }

  /** Whether a batch of `bytes` more fits under the bound. */
  fits(bytes: number): boolean {
    return this.total + bytes <= this.maxBytes;
  }

  /** Keeps a batch on disk, synced, before it returns; throws when it cannot (a full disk). */
  put(gzipped: Uint8Array, spans: number): void {
    const name = `${Date.now()}-${this.seq++}-${spans}.otlp.gz`;
    writeFileAtomic(join(this.dir, name), gzipped, { mode: 0o600 });
    this.files.push({ name, spans, bytes: gzipped.byteLength });
    this.total += gzipped.byteLength;
  }

  /** The oldest batch, or the oldest but `except`. */
  oldest(except?: SpooledFile): SpooledFile | undefined {
    return this.files.find((f) => f !== except);
  }

  /**
   * A batch that failed while one behind it went through: put behind the others, so that it no
   * longer holds them up. Returns how many times that has happened to it in this process.
   */
  defer(file: SpooledFile): number {
    const at = this.files.indexOf(file);
    if (at >= 0) this.files.push(...this.files.splice(at, 1));
    const strikes = (this.strikes.get(file.name) ?? 0) + 1;
    this.strikes.set(file.name, strikes);
    return strikes;
  }

  read(file: SpooledFile): Buffer {
    return readFileSync(join(this.dir, file.name));
  }

  /** Out of the count, whatever became of its file. */
  forget(file: SpooledFile): void {
    const at = this.files.indexOf(file);
    if (at < 0) return;
    this.files.splice(at, 1);
    this.total -= file.bytes;
    this.strikes.delete(file.name);
  }

  /** Once sent: gone from the disk, then from the count. */
  remove(file: SpooledFile): void {
    try {
      unlinkSync(join(this.dir, file.name));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
    this.forget(file);
  }

  close(): void {
    this.lock.release();
  }
}
