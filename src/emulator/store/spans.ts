// The spans the emulated trace ingest accepted. Each request's protobuf is kept as received (a few
// hundred bytes a span) and decoded only when someone looks, so that ingesting stays cheap and a
// benchmark's millions of spans fit. Bounded: the oldest requests go first past the limit. Written
// through to the state directory, request by request, with the counts.

import { ResourceSpansCodec } from '../../traces/otlp/otlp.js';
import { resourceToJson, scopeToJson, spanToJson } from '../../traces/otlp/otlp-json.js';
import { keyHex } from '../../traces/otlp/scan.js';
import { noPersistence, type Persistence, seqId } from '../durable/persistence.js';
import { SpanKeySet } from './span-keys.js';

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
  /**
   * Where each span's trace id and span id lie in the request's bytes, four offsets a span
   * (traces/otlp/scan.ts); let go once the part is stored (the keys are then in the store's key sets).
   */
  ids: number[];
  /** Spans of the part that the store had already (sent again): not counted, not shown. */
  repeated?: Set<number>;
}

interface StoredRequest {
  /** Its place in the state directory. */
  n: number;
  requestId: string;
  receivedAt: string;
  /** Plain, or as it came (compressed, or in the pieces it was read in): `unpack` makes it plain. */
  bytes: Uint8Array | readonly Uint8Array[];
  unpack?: () => Uint8Array;
  /** Its size plain: what the store's bound counts. */
  size: number;
  parts: StoredPart[];
}

/**
 * A request kept as it came (compressed, or in the pieces it was read in) rather than made plain in
 * memory of its own: what ingest costs is mostly memory touched for the first time (in a virtual
 * machine ~4 ms a MB, as much as the rest of ingest), and that memory was touched when it was read.
 * The state directory keeps it plain, as it always has.
 */
export interface PackedRequest {
  bytes: Uint8Array | readonly Uint8Array[];
  unpack: () => Uint8Array;
}

/** A part as the state directory keeps it (a Set does not survive JSON). */
type SavedPart = Omit<StoredPart, 'repeated' | 'ids'> & {
  /** Each span's trace id then span id, hex: what knows a span sent again after a restart. */
  keys: string[];
  repeated?: number[];
};
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
  /** The keys of the spans kept, by project. */
  private readonly seen = new Map<string, SpanKeySet>();
  readonly byProject = new Map<string, number>();
  private count = 0;

  constructor(private readonly persist: Persistence = noPersistence) {
    for (const { id, value, bytes } of persist.list<SavedRequest>('span-request')) {
      const parts = value.parts.map(
        ({ keys: _keys, ...p }): StoredPart => ({
          ...p,
          ids: [],
          repeated: p.repeated ? new Set(p.repeated) : undefined,
        }),
      );
      this.requests.push({
        n: Number(id),
        requestId: value.requestId,
        receivedAt: value.receivedAt,
        bytes: bytes ?? new Uint8Array(),
        size: bytes?.length ?? 0,
        parts,
      });
      this.storedBytes += bytes?.length ?? 0;
      value.parts.forEach((saved, p) => {
        const seen = this.seenIn(saved.project);
        saved.keys.forEach((hex, i) => {
          if (parts[p]!.repeated?.has(i)) return;
          const key = Buffer.from(hex, 'hex');
          seen.add(key, 0, key.length, key, 0, 0);
        });
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

  private seenIn(project: string): SpanKeySet {
    let seen = this.seen.get(project);
    if (!seen) {
      seen = new SpanKeySet();
      this.seen.set(project, seen);
    }
    return seen;
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

  /**
   * `bytes`: the request plain, which `parts` point into (read now only: it may be a buffer reused for
   * the next request, when `packed` is what is kept); `packed`: what to keep of it in memory.
   */
  add(requestId: string, bytes: Uint8Array, parts: StoredPart[], packed?: PackedRequest): void {
    if (parts.length === 0) return;
    // As it was, to be put back if the request cannot be written (a full disk: StorageFullError), so
    // that what is served is what is kept.
    const { count, storedBytes, accepted, dropped, duplicates } = this;
    const byProject = new Map(this.byProject);
    const undo = { fresh: [] as StoredPart[], shifted: [] as StoredRequest[] };
    try {
      this.persist.batch(() => this.store({ requestId, bytes, packed }, parts, undo));
    } catch (error) {
      if (this.count !== count) this.requests.pop();
      this.requests.unshift(...undo.shifted);
      for (const part of undo.fresh) {
        const seen = this.seenIn(part.project);
        const { ids } = part;
        for (let i = 0; i < part.spans; i++) {
          if (part.repeated?.has(i)) continue;
          const at = i * 4;
          seen.delete(bytes, ids[at]!, ids[at + 1]!, bytes, ids[at + 2]!, ids[at + 3]!);
        }
      }
      Object.assign(this, { count, storedBytes, accepted, dropped, duplicates });
      this.byProject.clear();
      for (const [project, n] of byProject) this.byProject.set(project, n);
      throw error;
    }
    // Kept: the keys are in `seen` (and on disk), not needed again in memory.
    for (const part of parts) part.ids = [];
  }

  private store(
    { requestId, bytes, packed }: { requestId: string; bytes: Uint8Array; packed?: PackedRequest },
    parts: StoredPart[],
    undo: { fresh: StoredPart[]; shifted: StoredRequest[] },
  ): void {
    const request: StoredRequest = {
      n: ++this.count,
      requestId,
      receivedAt: new Date().toISOString(),
      bytes: packed?.bytes ?? bytes,
      unpack: packed?.unpack,
      size: bytes.length,
      parts,
    };
    this.requests.push(request);
    this.storedBytes += bytes.length;
    for (const part of parts) {
      const seen = this.seenIn(part.project);
      const { ids } = part;
      let fresh = 0;
      undo.fresh.push(part);
      for (let i = 0; i < part.spans; i++) {
        const at = i * 4;
        if (seen.add(bytes, ids[at]!, ids[at + 1]!, bytes, ids[at + 2]!, ids[at + 3]!)) fresh++;
        else {
          this.duplicates++;
          part.repeated ??= new Set();
          part.repeated.add(i);
        }
      }
      this.accepted += fresh;
      this.byProject.set(part.project, (this.byProject.get(part.project) ?? 0) + fresh);
    }
    if (this.persist.durable) {
      const saved: SavedRequest = {
        requestId,
        receivedAt: request.receivedAt,
        parts: parts.map(({ ids, ...p }) => ({
          ...p,
          keys: Array.from({ length: p.spans }, (_, i) => keyHex(bytes, ids, i)),
          repeated: p.repeated ? [...p.repeated] : undefined,
        })),
      };
      this.persist.put('span-request', seqId(request.n), saved, bytes);
    }
    while (this.storedBytes > MAX_STORED_SPAN_BYTES && this.requests.length > 1) {
      const old = this.requests.shift()!;
      undo.shifted.push(old);
      this.storedBytes -= old.size;
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
      let plain: Uint8Array | undefined;
      for (const part of request.parts) {
        if (q.project && part.project !== q.project) continue;
        plain ??= request.unpack ? request.unpack() : (request.bytes as Uint8Array);
        const rs = ResourceSpansCodec.decode(plain.subarray(part.start, part.end));
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
