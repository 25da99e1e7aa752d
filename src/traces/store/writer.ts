// The tee's writer: what `aip traces serve --tee` keeps of each request it forwards. It never opens
// the database (on Node 20 the WebAssembly SQLite has no operating-system lock, so two processes must
// never have it open at once): it appends each request, framed (framing.ts), to a journal file of its
// own under traces/journal/, with one synchronous write, and readers (`aip traces list`, `show`,
// `tail`) fold the journal into traces.db before they read (fold.ts). Nothing else writes the file, so
// nothing waits on a lock and nothing interleaves.
//
// Past ROTATE_BYTES the file is ended (an end mark) and a new one begun at the next append, so that a
// fold can remove the finished file and the journal of a gateway that runs for days stays small.
//
// The tee is never a reason for the gateway to fail: a write that fails (a full disk, a read-only
// home) turns it off for the rest of the process, with one warning through `warn`; append never throws.

import { closeSync, constants, openSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { ensurePrivateDir } from '../../fs/private-dir.js';
import { writeAll } from '../../fs/write-all.js';
import { journalHostTag } from '../../history/paths.js';
import { END_RECORD, frameRecord, MAX_RECORD_BYTES } from './framing.js';
import { journalDirOf } from './paths.js';

type Env = Record<string, string | undefined>;

/** A journal file past this many bytes is ended, and the next request begins a new one. */
export const ROTATE_BYTES = 64 * 1024 * 1024;

export interface TeeWriterOptions {
  /** Told once, when the tee stops keeping (default: nothing said). */
  warn?: (message: string) => void;
  /** Rotation size other than ROTATE_BYTES: for tests. */
  rotateBytes?: number;
}

export interface TeeWriter {
  /** Keeps one plain protobuf ExportTraceServiceRequest, as forwarded. Never throws. */
  append(requestBytes: Uint8Array): void;
  /** Ends the current file (an end mark: a fold may then remove it). Never throws. */
  close(): void;
  /** Whether a write failed and the tee keeps nothing more. */
  readonly failed: boolean;
  /** The file being written, once one is open. */
  readonly file: string | undefined;
}

class JournalWriter implements TeeWriter {
  private fd: number | undefined;
  private written = 0;
  failed = false;
  file: string | undefined;

  constructor(
    private readonly dir: string,
    private readonly options: TeeWriterOptions,
  ) {}

  append(requestBytes: Uint8Array): void {
    if (this.failed || requestBytes.length === 0) return;
    try {
      if (requestBytes.length > MAX_RECORD_BYTES)
        throw new Error(`a request of ${requestBytes.length} bytes`);
      this.fd ??= this.open();
      const record = frameRecord(requestBytes);
      writeAll(this.fd, record);
      this.written += record.length;
      if (this.written >= (this.options.rotateBytes ?? ROTATE_BYTES)) this.endFile();
    } catch (error) {
      this.fail(error);
    }
  }

  close(): void {
    if (this.failed) return;
    try {
      this.endFile();
    } catch (error) {
      this.fail(error);
    }
  }

  private endFile(): void {
    if (this.fd === undefined) return;
    const fd = this.fd;
    this.fd = undefined;
    try {
      writeAll(fd, END_RECORD);
    } finally {
      closeSync(fd);
    }
  }

  private fail(error: unknown): void {
    this.failed = true;
    if (this.fd !== undefined) {
      try {
        closeSync(this.fd);
      } catch {
        // what was written whole stays readable; a part is never read (framing.ts)
      }
      this.fd = undefined;
    }
    const code = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    this.options.warn?.(
      `traces tee: cannot write ${this.file ?? this.dir} (${code}); nothing more is kept locally (forwarding goes on)`,
    );
  }

  private open(): number {
    const random = Math.floor(Math.random() * 0x1000000)
      .toString(16)
      .padStart(6, '0');
    this.file = join(this.dir, `${Date.now()}-${process.pid}-${journalHostTag(hostname())}-${random}.otlp`);
    this.written = 0;
    // O_EXCL: a name taken (the same pid, millisecond and random) is never written into.
    const flags = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_APPEND;
    ensurePrivateDir(this.dir);
    return openSync(this.file, flags, 0o600);
  }
}

/** The tee's writer for aip's data directory in `env` (nothing is made until the first append). */
export function openTeeWriter(env: Env, options: TeeWriterOptions = {}): TeeWriter {
  return new JournalWriter(journalDirOf(env), options);
}
