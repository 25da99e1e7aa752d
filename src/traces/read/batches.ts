// Spans into export requests of bounded size. Spans arrive one by one with the resource and scope
// they belong to (a "context"); a batch holds up to `spans` spans and at most `bytes` bytes of protobuf
// (a single span larger than that goes alone). Each span is written as protobuf the moment it arrives
// (straight from its JSON where it can be: ../otlp/span-writer.ts), and the request is put together
// around the spans' bytes when the batch is full, so that memory holds one batch at a time.
//
// A context can change after some of its spans were batched: OTLP/JSON writers put `schemaUrl` after
// the spans (protobuf field order), and nothing forbids `resource` coming last either. A batch
// remembers the version of each context it was encoded with; `reencode` encodes again the few batches
// whose contexts changed since.

import {
  decodeRequest,
  encodeRequest,
  type PbExportRequest,
  type PbResource,
  type PbResourceSpans,
  type PbScope,
  type PbSpan,
  ResourceCodec,
  ScopeCodec,
  SpanCodec,
} from '../otlp/otlp.js';
import { ProtoWriter, varintSize } from '../otlp/proto-writer.js';
import { writeJsonSpan } from '../otlp/span-writer.js';

export interface BatchLimits {
  spans: number;
  bytes: number;
}

export const DEFAULT_LIMITS: BatchLimits = { spans: 512, bytes: 4 * 1024 * 1024 };

/** Encoded once per version: a context's message, written into every batch that has its spans. */
interface Encoded {
  version: number;
  bytes: Uint8Array;
}

export class ResourceContext {
  resource: PbResource = {};
  schemaUrl: string | undefined;
  version = 0;
  /** The resource as sent (routed), encoded. */
  encoded: Encoded | undefined;
  /** Line of its resourceSpans element, for messages. */
  constructor(readonly line: number) {}
}

export class ScopeContext {
  scope: PbScope = {};
  schemaUrl: string | undefined;
  version = 0;
  encoded: Encoded | undefined;
  constructor(readonly resource: ResourceContext) {}
}

export interface EncodedBatch {
  bytes: Uint8Array;
  spans: number;
  /** The scope contexts of its ScopeSpans, in order, and the versions they were encoded with. */
  scopes: Array<{ scope: ScopeContext; scopeVersion: number; resourceVersion: number }>;
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

/** A length-delimited field's size: tag, length, body. */
const fieldSize = (body: number) => 1 + varintSize(body) + body;
const stringFieldSize = (s: string | undefined) => (s === undefined ? 0 : fieldSize(Buffer.byteLength(s)));

/** Spans of one scope context, from `start` to `end` in the batch's span bytes. */
interface SpanRun {
  scope: ScopeContext;
  start: number;
  end: number;
}

/** Consecutive spans of one scope context in the batch's span bytes. */
interface Group {
  scope: ScopeContext;
  /** End of its spans' bytes (the group before it ends where it starts). */
  end: number;
}

export class BatchBuilder {
  /** The batch's spans, each as a `spans` field of ScopeSpans, in order. */
  private readonly spans = new ProtoWriter();
  private groups: Group[] = [];
  /** Where each span of the batch starts in `spans` (for cutting a batch that outgrew its limit). */
  private spanStarts: number[] = [];
  private spanCount = 0;
  /** Bytes the batch's groups add around their spans, at most. */
  private overhead = 0;

  constructor(
    private readonly limits: BatchLimits,
    private readonly route: Router,
    private readonly emit: (batch: EncodedBatch) => void,
  ) {}

  /**
   * Adds a span straight from its OTLP/JSON, checking it as it goes: false, with nothing added, when
   * it is not plainly right (the caller checks it precisely and, if it passes, calls `add`).
   */
  addJson(value: unknown, scope: ScopeContext): boolean {
    const start = this.spans.pos;
    if (!writeJsonSpan(this.spans, value)) return false;
    this.placed(scope, start);
    return true;
  }

  /** Adds a span encoded already (line-transcoder.ts): `src` from `start` to `end`, a `spans` field. */
  addEncoded(src: Buffer, start: number, end: number, scope: ScopeContext): void {
    const at = this.spans.pos;
    this.spans.ensure(end - start);
    src.copy(this.spans.buf, at, start, end);
    this.spans.pos = at + end - start;
    this.placed(scope, at);
  }

  /** Adds a span that was checked and converted (precisely, or decoded from protobuf). */
  add(span: PbSpan, scope: ScopeContext): void {
    const start = this.spans.pos;
    this.spans.tag(2, 2);
    this.spans.bytes(SpanCodec.encode(span).finish());
    this.placed(scope, start);
  }

  /** The span just written at `start` joins the batch, or starts the next one if the batch is full. */
  private placed(scope: ScopeContext, start: number): void {
    const size = this.spans.pos - start;
    let last = this.groups.at(-1);
    let extra = last?.scope === scope ? 0 : this.groupOverhead(scope);
    if (
      this.spanCount > 0 &&
      (this.spanCount >= this.limits.spans || start + size + this.overhead + extra > this.limits.bytes)
    ) {
      this.emitBatch();
      this.spans.buf.copyWithin(0, start, start + size);
      this.spans.pos = size;
      last = undefined;
      extra = this.groupOverhead(scope);
    }
    if (last?.scope === scope) last.end = this.spans.pos;
    else {
      this.groups.push({ scope, end: this.spans.pos });
      this.overhead += extra;
    }
    this.spanStarts.push(this.spans.pos - size);
    this.spanCount++;
  }

  flush(): void {
    if (this.spanCount > 0) this.emitBatch();
    this.spans.pos = 0;
  }

  private resourceBytes(context: ResourceContext): Uint8Array {
    if (context.encoded?.version !== context.version)
      context.encoded = {
        version: context.version,
        bytes: ResourceCodec.encode(this.route(context)).finish(),
      };
    return context.encoded.bytes;
  }

  private scopeBytes(context: ScopeContext): Uint8Array {
    if (context.encoded?.version !== context.version)
      context.encoded = { version: context.version, bytes: ScopeCodec.encode(context.scope).finish() };
    return context.encoded.bytes;
  }

  /** At most what a group of this scope adds around its spans: its ResourceSpans and ScopeSpans. */
  private groupOverhead(scope: ScopeContext): number {
    const resource = scope.resource;
    return (
      2 * 6 +
      fieldSize(this.resourceBytes(resource).length) +
      stringFieldSize(resource.schemaUrl) +
      fieldSize(this.scopeBytes(scope).length) +
      stringFieldSize(scope.schemaUrl)
    );
  }

  /** The batch's requests (one, unless it outgrew its limit: see `within`); the batch is then empty. */
  private emitBatch(): void {
    const runs: SpanRun[] = [];
    let from = 0;
    for (const group of this.groups) {
      runs.push({ scope: group.scope, start: from, end: group.end });
      from = group.end;
    }
    for (const batch of this.within(runs, this.spanStarts, this.spanCount)) this.emit(batch);
    this.groups = [];
    this.spanStarts = [];
    this.spanCount = 0;
    this.overhead = 0;
  }

  /**
   * The runs as one request, or as two halves (again, as often as needed) when it is over the byte
   * limit: a resource or scope that grew after its spans were placed (a scanned document with its
   * resource last) makes the batch larger than its spans were measured for.
   */
  private within(runs: SpanRun[], starts: number[], count: number): EncodedBatch[] {
    const bytes = this.request(runs);
    if (bytes.length <= this.limits.bytes || count <= 1) {
      const scopes = runs.map((r) => ({
        scope: r.scope,
        scopeVersion: r.scope.version,
        resourceVersion: r.scope.resource.version,
      }));
      return [{ bytes, spans: count, scopes }];
    }
    const half = Math.ceil(count / 2);
    const cut = starts[half]!;
    const first: SpanRun[] = [];
    const second: SpanRun[] = [];
    for (const run of runs) {
      if (run.end <= cut) first.push(run);
      else if (run.start >= cut) second.push(run);
      else {
        first.push({ ...run, end: cut });
        second.push({ ...run, start: cut });
      }
    }
    return [
      ...this.within(first, starts.slice(0, half), half),
      ...this.within(second, starts.slice(half), count - half),
    ];
  }

  /** The ExportTraceServiceRequest of the runs: sizes first, inside out, then written once. */
  private request(runs: SpanRun[]): Buffer {
    const span = this.spans.buf;
    const resources: Array<{ resource: ResourceContext; runs: SpanRun[]; size: number }> = [];
    const scopeSizes: number[] = [];
    let total = 0;
    for (const run of runs) {
      const scopeSize =
        fieldSize(this.scopeBytes(run.scope).length) +
        (run.end - run.start) +
        stringFieldSize(run.scope.schemaUrl);
      scopeSizes.push(scopeSize);
      let entry = resources.at(-1);
      if (entry?.resource !== run.scope.resource) {
        const resource = run.scope.resource;
        entry = {
          resource,
          runs: [],
          size: fieldSize(this.resourceBytes(resource).length) + stringFieldSize(resource.schemaUrl),
        };
        resources.push(entry);
      }
      entry.runs.push(run);
      entry.size += fieldSize(scopeSize);
    }
    for (const entry of resources) total += fieldSize(entry.size);

    const out = new ProtoWriter(total);
    let k = 0;
    for (const entry of resources) {
      out.tag(1, 2);
      out.varint(entry.size);
      out.tag(1, 2);
      out.bytes(this.resourceBytes(entry.resource));
      for (const run of entry.runs) {
        out.tag(2, 2);
        out.varint(scopeSizes[k++]!);
        out.tag(1, 2);
        out.bytes(this.scopeBytes(run.scope));
        out.buf.set(span.subarray(run.start, run.end), out.pos);
        out.pos += run.end - run.start;
        if (run.scope.schemaUrl !== undefined) {
          out.tag(3, 2);
          out.string(run.scope.schemaUrl);
        }
      }
      if (entry.resource.schemaUrl !== undefined) {
        out.tag(3, 2);
        out.string(entry.resource.schemaUrl);
      }
    }
    if (out.pos !== total) throw new Error(`batch of ${total} bytes came out as ${out.pos}`);
    return out.buf;
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
