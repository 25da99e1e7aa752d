// A protobuf export routed without decoding its spans, which is most of what a full decode and
// re-encode would cost (bench/gateway.mjs): the request is walked as the emulator's ingest walks it
// (otlp/scan.ts: malformed messages refused), each ResourceSpans whose resource lacks the routing
// attributes is written again with them, its scope spans copied byte for byte, and one with no
// project to go to is left out. Used when nothing is to be redacted; redaction decodes the spans.

import { ResourceCodec, WireReader } from '../otlp/otlp.js';
import { type Project, resourceProject, withRouting } from '../otlp/routing.js';
import { scanTraceRequest } from '../otlp/scan.js';

const LEN = 2;

function varint(n: number): Buffer {
  const out: number[] = [];
  let v = n >>> 0;
  while (v > 0x7f) {
    out.push((v & 0x7f) | 0x80);
    v >>>= 7;
  }
  out.push(v);
  return Buffer.from(out);
}

/** A length-delimited field: its tag, its length, its bytes. */
function lengthField(field: number, body: readonly Uint8Array[]): Buffer[] {
  const size = body.reduce((n, b) => n + b.byteLength, 0);
  return [
    varint((field << 3) | LEN),
    varint(size),
    ...body.map((b) => Buffer.from(b.buffer, b.byteOffset, b.byteLength)),
  ];
}

/** The fields of a message other than `field`, as the byte ranges they are. */
function fieldsBut(message: Uint8Array, field: number): Uint8Array[] {
  const reader = WireReader.create(message);
  const kept: Uint8Array[] = [];
  while (reader.pos < reader.len) {
    const start = reader.pos;
    const tag = reader.uint32();
    reader.skipType(tag & 7);
    if (tag >>> 3 !== field) kept.push(message.subarray(start, reader.pos));
  }
  return kept;
}

export interface Routed {
  encoded: Uint8Array;
  /** Spans in the request, and those of them left out for want of a project. */
  received: number;
  unrouted: number;
}

/** Throws (the scan's error) when the bytes are no ExportTraceServiceRequest. */
export function routeEncoded(bytes: Buffer, fallback: Project | undefined): Routed {
  const scanned = scanTraceRequest(bytes);
  const parts: Buffer[] = [];
  let received = 0;
  let unrouted = 0;
  for (const rs of scanned) {
    received += rs.spans;
    const project = resourceProject(rs.resource) ?? fallback;
    if (!project) {
      unrouted += rs.spans;
      continue;
    }
    const message = bytes.subarray(rs.start, rs.end);
    const routed = withRouting(rs.resource, project);
    if (routed === rs.resource) {
      parts.push(...lengthField(1, [message]));
      continue;
    }
    const resource = lengthField(1, [ResourceCodec.encode(routed).finish()]);
    parts.push(...lengthField(1, [...resource, ...fieldsBut(message, 1)]));
  }
  return { encoded: Buffer.concat(parts), received, unrouted };
}
