// A walk over an ExportTraceServiceRequest as it arrived, for the emulator's trace ingest
// (api-contract.md §4) and the trace gateway (traces/gateway/), which route a request without decoding
// its spans: each ResourceSpans located, its Resource decoded (routing needs its attributes), its spans
// counted and keyed by their trace and span ids, and every field of every span stepped over so that a
// malformed message is refused (400) as a full decode would refuse it. Nothing else is decoded: the
// spans stay bytes until someone asks for them (the emulator's store/spans.ts).
//
// Written for the emulator's ingest budget (4 µs of CPU a span, about 1 KB of protobuf each): one loop
// per level over the bytes, no closure or object per field, and a span's key left where it is in the
// bytes (four offsets: span-keys.ts reads it there) rather than made into a string.

import { type PbResource, ResourceCodec } from './otlp.js';

export interface ScannedResourceSpans {
  /** Byte range of the ResourceSpans message inside the request. */
  start: number;
  end: number;
  resource: PbResource;
  spans: number;
  /**
   * Where each span's trace id and span id lie in the request's bytes, four offsets a span (trace
   * start, end, span id start, end; 0, 0 for one it lacks), in order: what keys a span.
   */
  ids: number[];
}

class Malformed extends Error {}

/** A cursor over the bytes; every read checks the bounds of the message it is in. */
class Cursor {
  pos = 0;
  constructor(readonly buf: Buffer) {}

  /** A varint of up to 32 bits (a tag, a length), as protobuf's uint32 reads it. */
  uint32(end: number): number {
    const buf = this.buf;
    let value = 0;
    for (let shift = 0; shift < 35; shift += 7) {
      if (this.pos >= end)
        throw new Malformed(`a varint runs past the end of its message (offset ${this.pos})`);
      const byte = buf[this.pos++]!;
      value |= (byte & 0x7f) << shift;
      if (byte < 0x80) return value >>> 0;
    }
    // A uint32 takes at most 5 bytes; longer ones (a negative int32) are skipped to their end.
    this.skipVarint(end);
    return value >>> 0;
  }

  skipVarint(end: number): void {
    const buf = this.buf;
    while (true) {
      if (this.pos >= end)
        throw new Malformed(`a varint runs past the end of its message (offset ${this.pos})`);
      if (buf[this.pos++]! < 0x80) return;
    }
  }

  /** The tag of the next field, checked: field number 0, groups and unknown wire types are refused. */
  tag(end: number): number {
    const tag = this.uint32(end);
    const wireType = tag & 7;
    if (tag >>> 3 === 0 || wireType === 3 || wireType === 4 || wireType > 5)
      throw new Malformed(`invalid tag ${tag} at offset ${this.pos}`);
    return tag;
  }

  /** The end of a length-delimited field whose length is next. */
  lengthEnd(end: number): number {
    const length = this.uint32(end);
    const fieldEnd = this.pos + length;
    if (fieldEnd > end) throw new Malformed(`a length of ${length} runs past the end of the message`);
    return fieldEnd;
  }

  /** Steps over a field's value of this wire type. */
  skip(wireType: number, end: number): void {
    if (wireType === 0) this.skipVarint(end);
    else if (wireType === 2) this.pos = this.lengthEnd(end);
    else {
      const size = wireType === 1 ? 8 : 4;
      if (this.pos + size > end)
        throw new Malformed(`a field runs past the end of its message (offset ${this.pos})`);
      this.pos += size;
    }
  }
}

/** Throws (with why) on a message that is not a well-formed ExportTraceServiceRequest. */
export function scanTraceRequest(bytes: Uint8Array): ScannedResourceSpans[] {
  const buf = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const c = new Cursor(buf);
  const found: ScannedResourceSpans[] = [];
  const end = buf.length;
  while (c.pos < end) {
    const tag = c.tag(end);
    if (tag !== ((1 << 3) | 2)) {
      c.skip(tag & 7, end);
      continue;
    }
    const rsEnd = c.lengthEnd(end);
    found.push(resourceSpans(c, rsEnd));
  }
  return found;
}

function resourceSpans(c: Cursor, end: number): ScannedResourceSpans {
  const found: ScannedResourceSpans = { start: c.pos, end, resource: {}, spans: 0, ids: [] };
  // A message field given more than once is one message, its parts merged (protobuf's rule): the
  // resource is decoded from all of them together, as a full decode would make it.
  const resources: Buffer[] = [];
  while (c.pos < end) {
    const tag = c.tag(end);
    if ((tag & 7) !== 2) {
      c.skip(tag & 7, end);
      continue;
    }
    const fieldEnd = c.lengthEnd(end);
    if (tag >>> 3 === 1) resources.push(c.buf.subarray(c.pos, fieldEnd));
    else if (tag >>> 3 === 2) scopeSpans(c, fieldEnd, found);
    c.pos = fieldEnd;
  }
  if (resources.length > 0)
    found.resource = ResourceCodec.decode(resources.length === 1 ? resources[0]! : Buffer.concat(resources));
  return found;
}

function scopeSpans(c: Cursor, end: number, into: ScannedResourceSpans): void {
  while (c.pos < end) {
    const tag = c.tag(end);
    if (tag !== ((2 << 3) | 2)) {
      c.skip(tag & 7, end);
      continue;
    }
    const spanEnd = c.lengthEnd(end);
    span(c, spanEnd, into.ids);
    into.spans++;
  }
}

/** Steps over one span's fields; appends where its trace id and span id are. */
function span(c: Cursor, end: number, ids: number[]): void {
  let traceStart = 0;
  let traceEnd = 0;
  let idStart = 0;
  let idEnd = 0;
  while (c.pos < end) {
    const tag = c.tag(end);
    // trace_id (1) and span_id (2), bytes: the span's key.
    if (tag === ((1 << 3) | 2)) {
      traceEnd = c.lengthEnd(end);
      traceStart = c.pos;
      c.pos = traceEnd;
    } else if (tag === ((2 << 3) | 2)) {
      idEnd = c.lengthEnd(end);
      idStart = c.pos;
      c.pos = idEnd;
    } else c.skip(tag & 7, end);
  }
  ids.push(traceStart, traceEnd, idStart, idEnd);
}

/** The key of a stored span as the state directory keeps it: hex, as earlier versions wrote it. */
export function keyHex(bytes: Uint8Array, ids: readonly number[], span: number): string {
  const at = span * 4;
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return buf.toString('hex', ids[at]!, ids[at + 1]!) + buf.toString('hex', ids[at + 2]!, ids[at + 3]!);
}
