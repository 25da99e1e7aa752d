// Every request the emulator receives (except its own /_emulator/ routes), for tests and benchmarks
// to assert on: method, path, query, headers, body, the answer's status and any fault applied.
// Bounded, so that a long benchmark cannot grow it without limit. Written through to the state
// directory as requests come and are answered.

import { noPersistence, type Persistence, StorageFullError, seqId } from './durable/persistence.js';

export interface RequestRecord {
  seq: number;
  request_id: string;
  time: string;
  method: string;
  path: string;
  query: Record<string, string>;
  headers: Record<string, string>;
  /** Parsed JSON, or text, or {bytes, base64} for binary bodies; null when empty. */
  body: unknown;
  /** "GET /training/v1/health", or the pattern of the route that matched. */
  route: string;
  status: number | null;
  fault: string | null;
  duration_ms: number | null;
  /**
   * The token usage a chat completion was answered with (a whole reply, or a stream that ran to its
   * end); null for every other answer. The emulator's account of what a client was charged: what aip
   * counts (history, budgets) is checked against it. Absent from records kept by an earlier version.
   */
  usage?: { prompt_tokens: number; completion_tokens: number } | null;
}

/** Binary bodies larger than this are recorded by size only. */
const MAX_BINARY_BODY = 16 * 1024;
/** Bodies larger than this are recorded by size only. */
const MAX_STORED_BODY = 1024 * 1024;
/** Oldest records go once the stored bodies pass this, or the count passes the capacity. */
const MAX_STORED_BYTES = 64 * 1024 * 1024;

/**
 * A write of the record that a full disk refuses is let go (the record is kept in memory only): the
 * request it records is served all the same, a read in particular (the write's own error says why).
 */
export function keptIfSpace(write: () => void): void {
  try {
    write();
  } catch (error) {
    if (!(error instanceof StorageFullError)) throw error;
  }
}

/** `read`: the body whole, asked for only when its content is recorded (not for a large binary one). */
export function describeBody(length: number, contentType: string | undefined, read: () => Buffer): unknown {
  if (length === 0) return null;
  if (length > MAX_STORED_BODY) return { bytes: length };
  const type = contentType ?? '';
  // Binary bodies (trace batches) by size only beyond a few KB: their content is in the span store.
  if (!/json/i.test(type) && !/^text\//i.test(type) && length > MAX_BINARY_BODY) return { bytes: length };
  const body = read();
  if (/json/i.test(type)) {
    try {
      return JSON.parse(body.toString('utf8'));
    } catch {
      return body.toString('utf8');
    }
  }
  if (/^text\//i.test(type)) return body.toString('utf8');
  return { bytes: body.length, base64: body.toString('base64') };
}

/** One record kept: its number and size always, the record itself once read (see RequestLog). */
interface Kept {
  seq: number;
  bytes: number;
  record?: RequestRecord;
}

export class RequestLog {
  /**
   * The records, oldest first. Those of an earlier run are read at start-up as their number and size
   * only (what the bounds need; SQLite reads them out of the JSON), and whole when the record is first
   * listed: 10,000 of them parsed were a quarter of a second of every start.
   */
  private records: Kept[] = [];
  private storedBytes = 0;
  private nextSeq = 1;
  /** Records dropped to stay within bounds since the last clear. */
  dropped = 0;
  private readonly counts = new Map<string, number>();

  constructor(
    private readonly capacity = 10_000,
    private readonly persist: Persistence = noPersistence,
  ) {
    for (const { id, value } of persist.listField<number>('request', '$.bytes')) {
      this.records.push({ seq: Number(id), bytes: value });
      this.storedBytes += value;
    }
    const meta = persist.get<{ next: number; counts: Record<string, number> }>('meta', 'requests');
    // The counter is written up to 10 ms after an answer (later-writes.ts); a record written before
    // its answer may be ahead of it after a kill -9, and its number is never handed out again.
    this.nextSeq = Math.max(meta?.value.next ?? 1, (this.records.at(-1)?.seq ?? 0) + 1);
    for (const [route, n] of Object.entries(meta?.value.counts ?? {})) this.counts.set(route, n);
  }

  /** Every record kept, read whole from the state directory where only its number and size were. */
  private all(): RequestRecord[] {
    if (this.records.some((kept) => !kept.record)) {
      const stored = new Map<number, RequestRecord>();
      for (const { id, value } of this.persist.list<{ record: RequestRecord }>('request'))
        stored.set(Number(id), value.record);
      for (const kept of this.records) kept.record ??= stored.get(kept.seq);
      // A record that could not be read (its write refused by a full disk) is not listed.
      this.records = this.records.filter((kept) => kept.record);
    }
    return this.records.map((kept) => kept.record!);
  }

  /** `bytes`: the size of the request body, which is what the record mostly costs. */
  add(record: Omit<RequestRecord, 'seq'>, bytes: number): RequestRecord {
    const full = { seq: this.nextSeq++, ...record };
    this.records.push({ seq: full.seq, record: full, bytes });
    this.storedBytes += bytes;
    // Held, not committed on its own: written with the request's own change, or before its answer.
    this.persist.putLater('request', seqId(full.seq), { record: full, bytes });
    while (
      this.records.length > this.capacity ||
      (this.storedBytes > MAX_STORED_BYTES && this.records.length > 1)
    ) {
      const old = this.records.shift()!;
      this.storedBytes -= old.bytes;
      this.persist.removeLater('request', seqId(old.seq));
      this.dropped++;
    }
    return full;
  }

  /** The record as answered (status, time, fault), counted under its route pattern. */
  finish(record: RequestRecord): void {
    this.counts.set(record.route, (this.counts.get(record.route) ?? 0) + 1);
    // The record just answered is among the last few: looked for from the end.
    const kept = this.records.findLast((r) => r.record === record);
    // After the answer: written with the next change or answer, or once this turn is over.
    if (kept) this.persist.putLater('request', seqId(record.seq), { record, bytes: kept.bytes });
    this.persist.putLater('meta', 'requests', {
      next: this.nextSeq,
      counts: Object.fromEntries(this.counts),
    });
  }

  list(filter: { method?: string; path?: string } = {}): RequestRecord[] {
    return this.all().filter(
      (r) =>
        (!filter.method || r.method === filter.method.toUpperCase()) &&
        (!filter.path || r.path === filter.path),
    );
  }

  routeCounts(): Record<string, number> {
    return Object.fromEntries(this.counts);
  }

  /** Records kept now. */
  get size(): number {
    return this.records.length;
  }

  /** Requests received since the emulator started (clearing the record does not reset it). */
  get total(): number {
    return this.nextSeq - 1;
  }

  clear(): void {
    this.persist.batch(() => {
      this.persist.removePrefix('request', '');
      this.persist.put('meta', 'requests', { next: this.nextSeq, counts: {} });
    });
    this.records = [];
    this.storedBytes = 0;
    this.counts.clear();
    this.dropped = 0;
  }
}
