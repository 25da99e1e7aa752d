// Where the emulator's state is kept beyond its memory. The stores (models, jobs, spans, the request
// record) keep their working copy in memory and tell this, synchronously, of every change before the
// request that made it is answered: so an answer is only ever sent for a change already written.
// `--ephemeral` (and every test and benchmark that starts the emulator in-process) uses the no-op kind.
//
// The shape is a small document store: kinds of documents, each an id (ordered as text: numbers are
// padded) and a JSON value, plus raw bytes for the requests trace ingest keeps as they came.

/** The kinds of document kept. */
export type DocKind = 'meta' | 'model' | 'checkpoint' | 'log' | 'job' | 'event' | 'span-request' | 'request';

export interface StoredDoc<T = unknown> {
  id: string;
  value: T;
  bytes?: Uint8Array;
}

export interface Persistence {
  /** Written to disk (true), or kept nowhere but memory. */
  readonly durable: boolean;
  /** The state directory, when durable. */
  readonly dir: string | undefined;
  /** The SQLite binding it is written through (node:sqlite, node-sqlite3-wasm), when durable. */
  readonly driver: string | undefined;
  /** What was found when it was opened and is worth a warning (a directory writable by others). */
  readonly notes?: readonly string[];
  /** Told of every write refused for want of space (the emulator logs the first). */
  onFull?: (error: StorageFullError) => void;
  put(kind: DocKind, id: string, value: unknown, bytes?: Uint8Array): void;
  remove(kind: DocKind, id: string): void;
  /** Removes every document of `kind` whose id starts with `prefix` ("" for all of them). */
  removePrefix(kind: DocKind, prefix: string): void;
  /** The documents of `kind`, ordered by id. */
  list<T>(kind: DocKind): StoredDoc<T>[];
  /** Runs `work` as one transaction: all its changes are kept, or none. */
  batch<T>(work: () => T): T;
  /** Counts of each kind, for `aip emulator status`. */
  counts(): Partial<Record<DocKind, number>>;
  close(): void;
}

/**
 * A write refused for want of space (SQLITE_FULL, ENOSPC, a quota): nothing of it was kept, and what
 * was there before still is. The emulator answers it 507, naming the cause, and goes on serving reads.
 */
export class StorageFullError extends Error {
  override name = 'StorageFullError';
  constructor(
    readonly file: string,
    cause: unknown,
  ) {
    super(
      `the emulator's state could not be written: no space left on the device that holds ${file} (${(cause as Error)?.message ?? cause}); free some space`,
      { cause },
    );
  }
}

/** The state of `--ephemeral`: kept in memory only, gone when the emulator stops. */
export const noPersistence: Persistence = {
  durable: false,
  dir: undefined,
  driver: undefined,
  put() {},
  remove() {},
  removePrefix() {},
  list: () => [],
  batch: (work) => work(),
  counts: () => ({}),
  close() {},
};

/** A number as an id that sorts as the number does (up to 10^15). */
export function seqId(n: number): string {
  return String(n).padStart(15, '0');
}
