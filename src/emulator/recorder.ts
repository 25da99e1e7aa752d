// Every request the emulator receives (except its own /_emulator/ routes), for tests and benchmarks
// to assert on: method, path, query, headers, body, the answer's status and any fault applied.
// Bounded, so that a long benchmark cannot grow it without limit.

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
}

const MAX_STORED_BODY = 256 * 1024;

export function describeBody(body: Buffer, contentType: string | undefined): unknown {
  if (body.length === 0) return null;
  const type = contentType ?? '';
  if (/json/i.test(type)) {
    try {
      return JSON.parse(body.toString('utf8'));
    } catch {
      return body.length <= MAX_STORED_BODY ? body.toString('utf8') : { bytes: body.length };
    }
  }
  if (/^text\//i.test(type))
    return body.length <= MAX_STORED_BODY ? body.toString('utf8') : { bytes: body.length };
  return body.length <= MAX_STORED_BODY
    ? { bytes: body.length, base64: body.toString('base64') }
    : { bytes: body.length };
}

export class RequestLog {
  private records: RequestRecord[] = [];
  private nextSeq = 1;
  dropped = 0;
  private readonly counts = new Map<string, number>();

  constructor(private readonly capacity = 10_000) {}

  add(record: Omit<RequestRecord, 'seq'>): RequestRecord {
    const full = { seq: this.nextSeq++, ...record };
    this.records.push(full);
    if (this.records.length > this.capacity) {
      this.records.splice(0, this.records.length - this.capacity);
      this.dropped++;
    }
    return full;
  }

  /** Counted once the route is known, so that counts are per route pattern, not per concrete path. */
  count(route: string): void {
    this.counts.set(route, (this.counts.get(route) ?? 0) + 1);
  }

  list(filter: { method?: string; path?: string } = {}): RequestRecord[] {
    return this.records.filter(
      (r) =>
        (!filter.method || r.method === filter.method.toUpperCase()) &&
        (!filter.path || r.path === filter.path),
    );
  }

  routeCounts(): Record<string, number> {
    return Object.fromEntries(this.counts);
  }

  get total(): number {
    return this.nextSeq - 1;
  }

  clear(): void {
    this.records = [];
    this.counts.clear();
    this.dropped = 0;
  }
}
