// Trace ingest (api-contract.md §4): POST /trace/agents/otel/v1/traces takes an OTLP protobuf
// ExportTraceServiceRequest (plain, gzip or deflate), the key as Basic "api:<key>" or a wandb-api-key
// header, and routes each resource's spans by its wandb.entity / wandb.project attributes or else the
// project_id header. Spans with neither are rejected (counted, not stored); the answer is the GenAI
// endpoint's {accepted_spans, rejected_spans, error_message}.

import { gunzipSync, inflateRawSync, inflateSync } from 'node:zlib';
import { parseProject, resourceProject } from '../../traces/otlp/routing.js';
import { type ScannedResourceSpans, scanTraceRequest } from '../../traces/otlp/scan.js';
import type { Exchange } from '../exchange.js';
import { joined, MAX_BODY_BYTES, type ReceivedBody } from '../steps/read-body.js';
import type { PackedRequest, StoredPart } from '../store/spans.js';
import type { EmulatorRouter } from './types.js';

/** The most a request may inflate to: a bomb is refused, not unpacked. */
const MAX_INFLATED_BYTES = 256 * 1024 * 1024;

function header(x: Exchange, name: string): string | undefined {
  const value = x.req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** The key of a request: Basic credentials (user "api"), or the wandb-api-key header. */
function keyOf(x: Exchange): string | undefined {
  const direct = header(x, 'wandb-api-key');
  if (direct) return direct.trim();
  const basic = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header(x, 'authorization') ?? '');
  if (!basic) return undefined;
  // The user is "api" (api-contract.md §4.2); any other is not this endpoint's credentials.
  const decoded = Buffer.from(basic[1]!, 'base64').toString('utf8');
  return decoded.startsWith('api:') ? decoded.slice(4) : undefined;
}

/**
 * The gzip member's own account of its size (ISIZE, its last four bytes), as the size of the buffer
 * to inflate into: in one piece, zlib hands it back as it is, where in 16 KB pieces it would join them
 * with Buffer.concat (TypedArray#set: slow on Node 20). A wrong ISIZE costs only speed; the cap holds.
 */
function gzipChunkSize(body: Buffer): number {
  const stated = body.length >= 18 ? body.readUInt32LE(body.length - 4) : 0;
  // A body states its own size: no more than deflate can give (1032 to 1) is believed.
  return Math.min(MAX_INFLATED_BYTES, body.length * 1032, Math.max(16 * 1024, stated + 64));
}

function inflate(body: Buffer, encoding: string): Buffer {
  const options = { maxOutputLength: MAX_INFLATED_BYTES };
  if (encoding === 'gzip') return gunzipSync(body, { ...options, chunkSize: gzipChunkSize(body) });
  try {
    return inflateSync(body, options);
  } catch {
    return inflateRawSync(body, options); // "deflate" as some clients send it: without the zlib header
  }
}

/**
 * Where a plain body read in pieces is joined to be walked: one buffer kept from request to request
 * (as large as the largest body so far, at most the body cap), so that its memory is touched once,
 * not once a request: the request itself is kept in its pieces (packedOf).
 */
let scratch = Buffer.alloc(0);

function plainOf(received: ReceivedBody): Buffer {
  if (received.chunks.length === 1) return received.chunks[0]!;
  if (scratch.length < received.length)
    scratch = Buffer.allocUnsafe(Math.max(received.length, Math.min(scratch.length * 2, MAX_BODY_BYTES)));
  return joined(received, scratch);
}

/**
 * What the span store keeps of the request (store/spans.ts): as it came, compressed or in the
 * pieces it was read in, made plain again when its spans are asked for; undefined for a body read
 * in one piece, kept as it is.
 */
function packedOf(x: Exchange, encoding: string): PackedRequest | undefined {
  const { received } = x;
  if (encoding !== 'identity') {
    const body = x.body;
    return { bytes: body, unpack: () => inflate(body, encoding) };
  }
  if (received.chunks.length === 1) return undefined;
  return { bytes: received.chunks, unpack: () => joined(received) };
}

/**
 * Each resource's spans routed to its project (its wandb.entity/wandb.project attributes, else the
 * project_id header); those that route nowhere are counted as rejected.
 */
export function routeParts(
  extents: readonly ScannedResourceSpans[],
  projectHeader: string | undefined,
): { parts: StoredPart[]; rejected: number } {
  const headerProject = parseProject(projectHeader);
  const parts: StoredPart[] = [];
  let rejected = 0;
  for (const extent of extents) {
    const project = resourceProject(extent.resource) ?? headerProject;
    if (!project) rejected += extent.spans;
    else if (extent.spans > 0) {
      parts.push({
        start: extent.start,
        end: extent.end,
        project: `${project.entity}/${project.project}`,
        spans: extent.spans,
        ids: extent.ids,
      });
    }
  }
  return { parts, rejected };
}

function ingest(x: Exchange): void {
  const key = keyOf(x);
  x.team = key === undefined ? undefined : x.state.teamForKey(key);
  if (x.team === undefined) {
    x.error(
      401,
      key === undefined
        ? 'Not authenticated: send Authorization: Basic base64("api:<key>") or a wandb-api-key header'
        : 'Authentication failed',
    );
    return;
  }
  const type = (header(x, 'content-type') ?? '').split(';')[0]!.trim().toLowerCase();
  if (type !== 'application/x-protobuf') {
    x.error(
      415,
      `Unsupported content type "${type || '(none)'}": the endpoint accepts OTLP protobuf (application/x-protobuf) only`,
    );
    return;
  }
  const encoding = (header(x, 'content-encoding') ?? 'identity').trim().toLowerCase();
  if (!['identity', 'gzip', 'deflate'].includes(encoding)) {
    x.error(415, `Unsupported content encoding "${encoding}": use gzip, deflate or none`);
    return;
  }
  let bytes: Buffer;
  try {
    bytes = encoding === 'identity' ? plainOf(x.received) : inflate(x.body, encoding);
  } catch (error) {
    x.error(400, `The body could not be decompressed (${encoding}): ${(error as Error).message}`);
    return;
  }
  let extents: ScannedResourceSpans[];
  try {
    extents = scanTraceRequest(bytes);
  } catch (error) {
    x.error(400, `The body is not an OTLP ExportTraceServiceRequest: ${(error as Error).message}`);
    return;
  }
  const { parts, rejected } = routeParts(extents, header(x, 'project_id'));
  const accepted = parts.reduce((n, p) => n + p.spans, 0);
  const store = x.state.spans;
  store.add(x.requestId, bytes, parts, packedOf(x, encoding));
  store.reject(rejected);
  x.send(200, {
    accepted_spans: accepted,
    rejected_spans: rejected,
    error_message: rejected
      ? `${rejected} span${rejected === 1 ? '' : 's'} had no project: set the wandb.entity and wandb.project resource attributes, or the project_id header`
      : '',
  });
}

export function registerTraceRoutes(router: EmulatorRouter): void {
  router.add('POST', '/trace/agents/otel/v1/traces', { run: ingest });
}
