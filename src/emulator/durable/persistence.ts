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
  /**
   * A write no answer waits for (the request record): kept in order with the others, and written
   * with the next transaction that writes anything, before the next answer is sent (flush), or at the
   * latest 10 ms later (later-writes.ts). A full disk drops it (the record is then kept in memory
   * only, as a write of it refused would be).
   */
  putLater(kind: DocKind, id: string, value: unknown): void;
  removeLater(kind: DocKind, id: string): void;
  /** Writes what putLater/removeLater hold now (before an answer is sent). */
  flush(): void;
  remove(kind: DocKind, id: string): void;
  /** Removes every document of `kind` whose id starts with `prefix` ("" for all of them). */
  removePrefix(kind: DocKind, prefix: string): void;
  /** The documents of `kind`, ordered by id. */
  list<T>(kind: DocKind): StoredDoc<T>[];
  /** One document, or undefined. */
  get<T>(kind: DocKind, id: string): StoredDoc<T> | undefined;
  /** The documents of `kind` whose id starts with `prefix`, ordered by id. */
  listPrefix<T>(kind: DocKind, prefix: string): StoredDoc<T>[];
  /**
   * The jobs not yet ended (status queued or running), found through an index SQLite keeps of them:
   * what start-up reads of 100,000 jobs is only the few still running.
   */
  listActiveJobs<T>(): StoredDoc<T>[];
  /**
   * One field of each document of `kind` (a JSON path, `$.bytes`), read by SQLite without the rest
   * of the document being parsed or handed over; ordered by id.
   */
  listField<T>(kind: DocKind, path: string): Array<{ id: string; value: T }>;
  /** How many documents of `kind` there are. */
  count(kind: DocKind): number;
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
  putLater() {},
  removeLater() {},
  flush() {},
  remove() {},
  removePrefix() {},
  list: () => [],
  get: () => undefined,
  listPrefix: () => [],
  listActiveJobs: () => [],
  listField: () => [],
  count: () => 0,
  batch: (work) => work(),
  counts: () => ({}),
  close() {},
};

/** A number as an id that sorts as the number does (up to 10^15). */
export function seqId(n: number): string {
  return String(n).padStart(15, '0');
}
