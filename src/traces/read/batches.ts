// Spans into export requests of bounded size. Spans arrive one by one with the resource and scope
// they belong to (a "context"); a batch holds up to `spans` spans and about `bytes` bytes of protobuf,
// and is encoded the moment it is full, so that memory holds one batch at a time.
//
// A context can change after some of its spans were batched: OTLP/JSON writers put `schemaUrl` after
// the spans (protobuf field order), and nothing forbids `resource` coming last either. A batch
// remembers the version of each context it was encoded with; `finalise` re-encodes the few batches
// whose contexts changed since.

import {
  decodeRequest,
  encodeRequest,
  type PbAnyValue,
  type PbExportRequest,
  type PbKeyValue,
  type PbResource,
  type PbResourceSpans,
  type PbScope,
  type PbSpan,
} from '../otlp/otlp.js';

export interface BatchLimits {
  spans: number;
  bytes: number;
}

export const DEFAULT_LIMITS: BatchLimits = { spans: 512, bytes: 4 * 1024 * 1024 };

export class ResourceContext {
  resource: PbResource = {};
  schemaUrl: string | undefined;
  version = 0;
  /** Line of its resourceSpans element, for messages. */
  constructor(readonly line: number) {}
}

export class ScopeContext {
  scope: PbScope = {};
  schemaUrl: string | undefined;
  version = 0;
  constructor(readonly resource: ResourceContext) {}
}

export interface EncodedBatch {
  bytes: Uint8Array;
  spans: number;
  /** The scope contexts of its ScopeSpans, in order, and the versions they were encoded with. */
  scopes: Array<{ scope: ScopeContext; scopeVersion: number; resourceVersion: number }>;
}

function stringSize(s: string | undefined): number {
  return s ? s.length + 2 : 0;
}

function valueSize(v: PbAnyValue | undefined, depth = 0): number {
  if (!v || depth > 32) return 2;
  // != null: decoded messages (protobuf input) hold null for what was not set.
  if (v.stringValue != null) return v.stringValue.length + 4;
  if (v.bytesValue != null) return v.bytesValue.length + 4;
  if (v.arrayValue) return 4 + v.arrayValue.values.reduce((n, x) => n + valueSize(x, depth + 1) + 2, 0);
  if (v.kvlistValue) return 4 + attributesSize(v.kvlistValue.values, depth + 1);
  return 12;
}

function attributesSize(list: PbKeyValue[] | undefined, depth = 0): number {
  let n = 0;
  if (list) for (const kv of list) n += kv.key.length + valueSize(kv.value, depth) + 6;
  return n;
}

/**
 * About the encoded size of a span, cheaply: string lengths (ASCII assumed) and fixed costs. A
 * batch that turns out larger than the limit after encoding is split (see `encodeWithin`).
 */
export function spanSize(s: PbSpan): number {
  let n = 64 + stringSize(s.name) + stringSize(s.traceState) + attributesSize(s.attributes);
  if (s.events) for (const e of s.events) n += 24 + stringSize(e.name) + attributesSize(e.attributes);
  if (s.links) for (const l of s.links) n += 40 + stringSize(l.traceState) + attributesSize(l.attributes);
  if (s.status) n += 8 + stringSize(s.status.message);
  return n;
}

function contextSize(c: ScopeContext): number {
  const r = c.resource;
  return (
    16 +
    attributesSize(r.resource.attributes) +
    stringSize(r.schemaUrl) +
    stringSize(c.scope.name) +
    stringSize(c.scope.version) +
    attributesSize(c.scope.attributes) +
    stringSize(c.schemaUrl)
  );
}

/** The request for spans grouped by scope context (consecutive spans of one scope share an entry). */
function buildRequest(
  groups: Array<{ scope: ScopeContext; spans: PbSpan[] }>,
  route: Router,
): PbExportRequest {
  const resourceSpans: PbResourceSpans[] = [];
  let last: { context: ResourceContext; entry: PbResourceSpans } | undefined;
  for (const { scope, spans } of groups) {
    if (last?.context !== scope.resource) {
      const entry: PbResourceSpans = { resource: route(scope.resource), scopeSpans: [] };
      if (scope.resource.schemaUrl !== undefined) entry.schemaUrl = scope.resource.schemaUrl;
      resourceSpans.push(entry);
      last = { context: scope.resource, entry };
    }
    const scopeSpans: PbResourceSpans['scopeSpans'][number] = { scope: scope.scope, spans };
    if (scope.schemaUrl !== undefined) scopeSpans.schemaUrl = scope.schemaUrl;
    last.entry.scopeSpans.push(scopeSpans);
  }
  return { resourceSpans };
}

/** The resource as sent: the project's routing attributes added when it has none (see ../otlp/routing.ts). */
export type Router = (context: ResourceContext) => PbResource;

export class BatchBuilder {
  private groups: Array<{ scope: ScopeContext; spans: PbSpan[] }> = [];
  private spanCount = 0;
  private size = 0;

  constructor(
    private readonly limits: BatchLimits,
    private readonly route: Router,
    private readonly emit: (batch: EncodedBatch) => void,
  ) {}

  add(span: PbSpan, scope: ScopeContext): void {
    const size = spanSize(span);
    const last = this.groups.at(-1);
    const extra = last?.scope === scope ? 0 : contextSize(scope);
    if (
      this.spanCount > 0 &&
      (this.spanCount >= this.limits.spans || this.size + size + extra > this.limits.bytes)
    ) {
      this.flush();
    }
    if (this.groups.at(-1)?.scope === scope) this.groups.at(-1)!.spans.push(span);
    else {
      this.groups.push({ scope, spans: [span] });
      this.size += contextSize(scope);
    }
    this.spanCount++;
    this.size += size;
  }

  flush(): void {
    if (this.spanCount === 0) return;
    for (const batch of this.encodeWithin(this.groups)) this.emit(batch);
    this.groups = [];
    this.spanCount = 0;
    this.size = 0;
  }

  /** Encodes the groups as one request, or as several when the estimate fell short of the truth. */
  private encodeWithin(groups: Array<{ scope: ScopeContext; spans: PbSpan[] }>): EncodedBatch[] {
    const bytes = encodeRequest(buildRequest(groups, this.route));
    const spans = groups.reduce((n, g) => n + g.spans.length, 0);
    if (bytes.length <= this.limits.bytes || spans <= 1) {
      const scopes = groups.map((g) => ({
        scope: g.scope,
        scopeVersion: g.scope.version,
        resourceVersion: g.scope.resource.version,
      }));
      return [{ bytes, spans, scopes }];
    }
    const half = Math.ceil(spans / 2);
    const first: typeof groups = [];
    const second: typeof groups = [];
    let seen = 0;
    for (const g of groups) {
      const take = Math.max(0, Math.min(g.spans.length, half - seen));
      if (take > 0) first.push({ scope: g.scope, spans: g.spans.slice(0, take) });
      if (take < g.spans.length) second.push({ scope: g.scope, spans: g.spans.slice(take) });
      seen += g.spans.length;
    }
    return [...this.encodeWithin(first), ...this.encodeWithin(second)];
  }
}

/** Is the batch still right, or did one of its contexts change after it was encoded? */
export function isStale(batch: EncodedBatch): boolean {
  return batch.scopes.some(
    (s) => s.scope.version !== s.scopeVersion || s.scope.resource.version !== s.resourceVersion,
  );
}

/** A stale batch encoded again with its contexts as they ended up. */
export function reencode(batch: EncodedBatch, bytes: Uint8Array, route: Router): Uint8Array {
  const request = decodeRequest(bytes);
  const groups: Array<{ scope: ScopeContext; spans: PbSpan[] }> = [];
  let k = 0;
  for (const rs of request.resourceSpans) {
    for (const ss of rs.scopeSpans) groups.push({ scope: batch.scopes[k++]!.scope, spans: ss.spans });
  }
  return encodeRequest(buildRequest(groups, route));
}
