// The spans the emulated trace ingest accepted. Each request's protobuf is kept as received (a few
// hundred bytes a span) and decoded only when someone looks, so that ingesting stays cheap and a
// benchmark's millions of spans fit. Bounded: the oldest requests go first past the limit. Written
// through to the state directory, request by request, with the counts.

import { ResourceSpansCodec } from '../../traces/otlp/otlp.js';
import { resourceToJson, scopeToJson, spanToJson } from '../../traces/otlp/otlp-json.js';
import { noPersistence, type Persistence, seqId } from '../durable/persistence.js';

/**
 * Stored bytes of OTLP requests past which the oldest requests are let go (their spans counted as
 * dropped): about a million spans, in memory and in the state directory alike.
 */
export const MAX_STORED_SPAN_BYTES = 512 * 1024 * 1024;

export interface StoredPart {
  /** Where one accepted ResourceSpans lies in its request's bytes. */
  start: number;
  end: number;
  project: string;
  spans: number;
  /** Trace id + span id of each span, in order. */
  keys: string[];
  /** Spans of the part that the store had already (sent again): not counted, not shown. */
  repeated?: Set<number>;
}

interface StoredRequest {
  /** Its place in the state directory. */
  n: number;
  requestId: string;
  receivedAt: string;
  bytes: Uint8Array;
  parts: StoredPart[];
}

/** A part as the state directory keeps it (a Set does not survive JSON). */
type SavedPart = Omit<StoredPart, 'repeated'> & { repeated?: number[] };
type SavedRequest = { requestId: string; receivedAt: string; parts: SavedPart[] };
type Counts = {
  accepted: number;
  rejected: number;
  dropped: number;
  duplicates: number;
  byProject: Record<string, number>;
};

export interface SpanRecord {
  project: string;
  request_id: string;
  received_at: string;
  resource: unknown;
  resource_schema_url?: string;
  scope: unknown;
  scope_schema_url?: string;
  span: Record<string, unknown>;
}

export interface SpanQuery {
  project?: string;
  traceId?: string;
  name?: string;
  offset: number;
  limit: number;
}

export class SpanStore {
  private requests: StoredRequest[] = [];
  private storedBytes = 0;
  accepted = 0;
  rejected = 0;
  /** Spans let go to stay under the limit. */
  dropped = 0;
  /** Spans received again (the same trace and span id): kept once, as the platform keys spans. */
  duplicates = 0;
  private readonly seen = new Set<string>();
  readonly byProject = new Map<string, number>();
  private count = 0;

  constructor(private readonly persist: Persistence = noPersistence) {
    for (const { id, value, bytes } of persist.list<SavedRequest>('span-request')) {
      const parts = value.parts.map((p) => ({
        ...p,
        repeated: p.repeated ? new Set(p.repeated) : undefined,
      }));
      this.requests.push({
        n: Number(id),
        requestId: value.requestId,
        receivedAt: value.receivedAt,
        bytes: bytes ?? new Uint8Array(),
        parts,
      });
      this.storedBytes += bytes?.length ?? 0;
      for (const part of parts)
        part.keys.forEach((key, i) => {
          if (!part.repeated?.has(i)) this.seen.add(`${part.project} ${key}`);
        });
    }
    this.count = this.requests.at(-1)?.n ?? 0;
    const counts = persist.list<Counts>('meta').find((doc) => doc.id === 'spans')?.value;
    if (counts) {
      ({
        accepted: this.accepted,
        rejected: this.rejected,
        dropped: this.dropped,
        duplicates: this.duplicates,
      } = counts);
      for (const [project, n] of Object.entries(counts.byProject)) this.byProject.set(project, n);
    }
  }

  /** Spans that routed nowhere (counted, not stored). */
  reject(spans: number): void {
    if (spans === 0) return;
    this.rejected += spans;
    try {
      this.saveCounts();
    } catch (error) {
      this.rejected -= spans;
      throw error;
    }
  }

  private saveCounts(): void {
    const { accepted, rejected, dropped, duplicates } = this;
    this.persist.put('meta', 'spans', {
      accepted,
      rejected,
      dropped,
      duplicates,
      byProject: Object.fromEntries(this.byProject),
    });
  }

  add(requestId: string, bytes: Uint8Array, parts: StoredPart[]): void {
    if (parts.length === 0) return;
    // As it was, to be put back if the request cannot be written (a full disk: StorageFullError), so
    // that what is served is what is kept.
    const { count, storedBytes, accepted, dropped, duplicates } = this;
    const byProject = new Map(this.byProject);
    const undo = { seen: [] as string[], shifted: [] as StoredRequest[] };
    try {
      this.persist.batch(() => this.store(requestId, bytes, parts, undo));
    } catch (error) {
      if (this.count !== count) this.requests.pop();
      this.requests.unshift(...undo.shifted);
      for (const id of undo.seen) this.seen.delete(id);
      Object.assign(this, { count, storedBytes, accepted, dropped, duplicates });
      this.byProject.clear();
      for (const [project, n] of byProject) this.byProject.set(project, n);
      throw error;
    }
  }

  private store(
    requestId: string,
    bytes: Uint8Array,
    parts: StoredPart[],
    undo: { seen: string[]; shifted: StoredRequest[] },
  ): void {
    const request = { n: ++this.count, requestId, receivedAt: new Date().toISOString(), bytes, parts };
    this.requests.push(request);
    this.storedBytes += bytes.length;
    for (const part of parts) {
      let fresh = 0;
      part.keys.forEach((key, i) => {
        const id = `${part.project} ${key}`;
        if (this.seen.has(id)) {
          this.duplicates++;
          part.repeated ??= new Set();
          part.repeated.add(i);
        } else {
          this.seen.add(id);
          undo.seen.push(id);
          fresh++;
        }
      });
      this.accepted += fresh;
      this.byProject.set(part.project, (this.byProject.get(part.project) ?? 0) + fresh);
    }
    const saved: SavedRequest = {
      requestId,
      receivedAt: request.receivedAt,
      parts: parts.map((p) => ({ ...p, repeated: p.repeated ? [...p.repeated] : undefined })),
    };
    this.persist.put('span-request', seqId(request.n), saved, bytes);
    while (this.storedBytes > MAX_STORED_SPAN_BYTES && this.requests.length > 1) {
      const old = this.requests.shift()!;
      undo.shifted.push(old);
      this.storedBytes -= old.bytes.length;
      for (const part of old.parts) this.dropped += part.spans;
      this.persist.remove('span-request', seqId(old.n));
    }
    this.saveCounts();
  }

  /** Decodes the stored spans that match, oldest first. */
  query(q: SpanQuery): { total: number; data: SpanRecord[] } {
    const data: SpanRecord[] = [];
    let total = 0;
    for (const request of this.requests) {
      for (const part of request.parts) {
        if (q.project && part.project !== q.project) continue;
        const rs = ResourceSpansCodec.decode(request.bytes.subarray(part.start, part.end));
        const resource = resourceToJson(rs.resource ?? {});
        let index = 0;
        for (const ss of rs.scopeSpans) {
          const scope = scopeToJson(ss.scope ?? {});
          for (const span of ss.spans) {
            if (part.repeated?.has(index++)) continue;
            const json = spanToJson(span);
            if (q.traceId && json.traceId !== q.traceId) continue;
            if (q.name && json.name !== q.name) continue;
            total++;
            if (total <= q.offset || data.length >= q.limit) continue;
            const record: SpanRecord = {
              project: part.project,
              request_id: request.requestId,
              received_at: request.receivedAt,
              resource,
              scope,
              span: json,
            };
            if (rs.schemaUrl) record.resource_schema_url = rs.schemaUrl;
            if (ss.schemaUrl) record.scope_schema_url = ss.schemaUrl;
            data.push(record);
          }
        }
      }
    }
    return { total, data };
  }

  /** Spans kept now (accepted, not sent again, not yet let go past the limit). */
  stored(): number {
    let n = 0;
    for (const request of this.requests)
      for (const part of request.parts) n += part.spans - (part.repeated?.size ?? 0);
    return n;
  }

  summary(): Record<string, unknown> {
    return {
      accepted: this.accepted,
      rejected: this.rejected,
      dropped: this.dropped,
      duplicates: this.duplicates,
      requests: this.requests.length,
      stored_bytes: this.storedBytes,
      by_project: Object.fromEntries(this.byProject),
    };
  }

  clear(): void {
    this.persist.batch(() => {
      this.persist.removePrefix('span-request', '');
      this.persist.remove('meta', 'spans');
    });
    this.count = 0;
    this.requests = [];
    this.storedBytes = 0;
    this.accepted = 0;
    this.rejected = 0;
    this.dropped = 0;
    this.duplicates = 0;
    this.seen.clear();
    this.byProject.clear();
  }
}
