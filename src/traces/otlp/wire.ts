// Walks an ExportTraceServiceRequest on the wire without building every span: each ResourceSpans is
// located, its Resource decoded (routing needs its attributes) and its spans counted, every field of
// every span stepped over so that a malformed message is still caught. Receiving a batch this way
// costs a fraction of decoding it; the spans are decoded when someone asks for them.

import { type PbResource, ResourceCodec, WireReader } from './otlp.js';

export interface ResourceSpansExtent {
  /** Byte range of the ResourceSpans message inside the request. */
  start: number;
  end: number;
  resource: PbResource;
  spans: number;
  /** Each span's trace id and span id, in hex, in order: what identifies a span. */
  keys: string[];
}

type Reader = InstanceType<typeof WireReader>;

/** Calls `field` for each field of the message that ends at `end`; skips the ones it leaves unread. */
function fields(reader: Reader, end: number, field: (number: number, wireType: number) => boolean): void {
  while (reader.pos < end) {
    const tag = reader.uint32();
    const wireType = tag & 7;
    if (tag >>> 3 === 0 || wireType === 3 || wireType === 4 || wireType > 5)
      throw new Error(`invalid tag ${tag} at offset ${reader.pos}`);
    if (!field(tag >>> 3, wireType)) reader.skipType(wireType);
  }
  if (reader.pos !== end) throw new Error(`a field runs past the end of its message (offset ${reader.pos})`);
}

/** The end offset of a length-delimited field whose length is next. */
function lengthEnd(reader: Reader): number {
  const length = reader.uint32();
  const end = reader.pos + length;
  if (end > reader.len) throw new Error(`a length of ${length} runs past the end of the message`);
  return end;
}

/** Throws on a message that is not a well-formed ExportTraceServiceRequest. */
export function scanRequest(bytes: Uint8Array): ResourceSpansExtent[] {
  const reader = WireReader.create(bytes);
  const found: ResourceSpansExtent[] = [];
  fields(reader, reader.len, (number, wireType) => {
    if (number !== 1 || wireType !== 2) return false;
    const end = lengthEnd(reader);
    const extent: ResourceSpansExtent = { start: reader.pos, end, resource: {}, spans: 0, keys: [] };
    fields(reader, end, (rsField, rsType) => {
      if (rsType !== 2) return false;
      if (rsField === 1) {
        const resourceEnd = lengthEnd(reader);
        extent.resource = ResourceCodec.decode(bytes.subarray(reader.pos, resourceEnd));
        reader.pos = resourceEnd;
        return true;
      }
      if (rsField !== 2) return false;
      const scopeEnd = lengthEnd(reader);
      fields(reader, scopeEnd, (ssField, ssType) => {
        if (ssField !== 2 || ssType !== 2) return false;
        const spanEnd = lengthEnd(reader);
        let traceId = '';
        let spanId = '';
        fields(reader, spanEnd, (spanField, spanType) => {
          if ((spanField !== 1 && spanField !== 2) || spanType !== 2) return false;
          const idEnd = lengthEnd(reader);
          const hex = Buffer.from(bytes.buffer, bytes.byteOffset + reader.pos, idEnd - reader.pos).toString(
            'hex',
          );
          if (spanField === 1) traceId = hex;
          else spanId = hex;
          reader.pos = idEnd;
          return true;
        });
        extent.spans++;
        extent.keys.push(traceId + spanId);
        return true;
      });
      return true;
    });
    found.push(extent);
    return true;
  });
  return found;
}
