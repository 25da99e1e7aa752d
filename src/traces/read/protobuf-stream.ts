// Reads an OTLP protobuf ExportTraceServiceRequest as a stream: the wire format is walked three levels
// down (ResourceSpans, ScopeSpans, Span) and each resource, scope and span is decoded on its own, so
// that memory holds one span at a time, however large the file. Each message is decoded by the
// generated codec; only the framing around them is walked here. A message longer than the line limit
// (AIP_MAX_LINE_BYTES) is passed over without being held, and reported (a `tooLarge` event).

import { DEFAULT_LINE_BYTES } from '../../api/limits.js';
import {
  type PbResource,
  type PbScope,
  type PbSpan,
  ResourceCodec,
  ScopeCodec,
  SpanCodec,
} from '../otlp/otlp.js';

export type ProtobufEvent =
  | { kind: 'resourceSpans'; offset: number; index: number }
  | { kind: 'resource'; resource: PbResource }
  | { kind: 'resourceSchemaUrl'; schemaUrl: string }
  | { kind: 'scopeSpans'; index: number }
  | { kind: 'scope'; scope: PbScope }
  | { kind: 'scopeSchemaUrl'; schemaUrl: string }
  | { kind: 'span'; span: PbSpan; index: number; offset: number }
  | { kind: 'end'; of: 'resourceSpans' | 'scopeSpans' }
  | {
      kind: 'tooLarge';
      what: 'resource' | 'scope' | 'span' | 'schemaUrl';
      /** Which message it is a field of. */
      of: 'resourceSpans' | 'scopeSpans';
      index: number;
      offset: number;
    };

export class ProtobufFramingError extends Error {
  constructor(
    message: string,
    readonly offset: number,
  ) {
    super(message);
  }
}

/** Bytes from an async stream, with the position counted from the start. */
class ByteReader {
  private buf: Buffer = Buffer.alloc(0);
  private pos = 0;
  /** Offset of buf[0] in the whole stream. */
  private base = 0;
  private done = false;

  constructor(private readonly input: AsyncIterator<Buffer>) {}

  get offset(): number {
    return this.base + this.pos;
  }

  /** Makes `n` bytes available; false when the stream ends first. */
  private async fill(n: number): Promise<boolean> {
    if (this.buf.length - this.pos >= n) return true;
    const parts: Buffer[] = [this.buf.subarray(this.pos)];
    let have = parts[0]!.length;
    while (have < n && !this.done) {
      const next = await this.input.next();
      if (next.done) this.done = true;
      else {
        parts.push(next.value);
        have += next.value.length;
      }
    }
    this.base += this.pos;
    this.buf = parts.length === 1 ? parts[0]! : Buffer.concat(parts);
    this.pos = 0;
    return have >= n;
  }

  async atEnd(): Promise<boolean> {
    return !(await this.fill(1));
  }

  async varint(): Promise<number> {
    let value = 0;
    let scale = 1;
    for (let i = 0; i < 10; i++) {
      if (!(await this.fill(1))) throw new ProtobufFramingError('the input ends inside a field', this.offset);
      const byte = this.buf[this.pos++]!;
      value += (byte & 0x7f) * scale;
      if (byte < 0x80) return value;
      scale *= 128;
    }
    throw new ProtobufFramingError('a varint longer than 10 bytes', this.offset);
  }

  async bytes(n: number): Promise<Buffer> {
    if (!(await this.fill(n)))
      throw new ProtobufFramingError(`a field of ${n} bytes runs past the end of the input`, this.offset);
    const out = this.buf.subarray(this.pos, this.pos + n);
    this.pos += n;
    return out;
  }

  /** Moves past `n` bytes without holding them. */
  async discard(n: number): Promise<void> {
    for (;;) {
      const available = this.buf.length - this.pos;
      if (available >= n) {
        this.pos += n;
        return;
      }
      n -= available;
      this.base += this.buf.length;
      this.buf = Buffer.alloc(0);
      this.pos = 0;
      const next = this.done ? undefined : await this.input.next();
      if (!next || next.done) {
        this.done = true;
        throw new ProtobufFramingError(`a field runs ${n} bytes past the end of the input`, this.offset);
      }
      this.buf = next.value;
    }
  }

  async skip(wireType: number): Promise<void> {
    const at = this.offset;
    if (wireType === 0) await this.varint();
    else if (wireType === 1) await this.bytes(8);
    else if (wireType === 2) await this.discard(await this.varint());
    else if (wireType === 5) await this.bytes(4);
    else throw new ProtobufFramingError(`unsupported wire type ${wireType}`, at);
  }
}

async function* fields(
  r: ByteReader,
  end: number | undefined,
): AsyncGenerator<{ field: number; wireType: number; at: number }> {
  while (end === undefined ? !(await r.atEnd()) : r.offset < end) {
    const at = r.offset;
    const tag = await r.varint();
    const field = Math.floor(tag / 8);
    const wireType = tag % 8;
    if (field === 0) throw new ProtobufFramingError(`invalid tag ${tag}`, at);
    yield { field, wireType, at };
  }
  if (end !== undefined && r.offset !== end)
    throw new ProtobufFramingError('a field runs past the end of its message', r.offset);
}

function decode<T>(codec: { decode(bytes: Uint8Array): T }, bytes: Buffer, what: string, at: number): T {
  try {
    return codec.decode(bytes);
  } catch (error) {
    throw new ProtobufFramingError(`${what}: ${(error as Error).message}`, at);
  }
}

async function lengthEnd(r: ByteReader): Promise<number> {
  const length = await r.varint();
  return r.offset + length;
}

/**
 * The events of a protobuf ExportTraceServiceRequest; throws ProtobufFramingError where it is broken.
 * A resource, scope, span or schema URL longer than `maxBytes` is passed over (`tooLarge`).
 */
export async function* protobufEvents(
  input: AsyncIterable<Buffer>,
  maxBytes = DEFAULT_LINE_BYTES,
): AsyncGenerator<ProtobufEvent> {
  const r = new ByteReader(input[Symbol.asyncIterator]());
  /** The length of a message to read, or undefined (after passing over it) when it is over the limit. */
  const within = async (): Promise<number | undefined> => {
    const length = await r.varint();
    if (length <= maxBytes) return length;
    await r.discard(length);
    return undefined;
  };
  let resourceIndex = 0;
  for await (const top of fields(r, undefined)) {
    if (top.field !== 1 || top.wireType !== 2) {
      await r.skip(top.wireType);
      continue;
    }
    const rsEnd = await lengthEnd(r);
    yield { kind: 'resourceSpans', offset: top.at, index: resourceIndex++ };
    let scopeIndex = 0;
    for await (const rs of fields(r, rsEnd)) {
      if (rs.wireType !== 2 || rs.field > 3) {
        await r.skip(rs.wireType);
        continue;
      }
      if (rs.field !== 2) {
        const length = await within();
        const what = rs.field === 1 ? 'resource' : 'schemaUrl';
        if (length === undefined)
          yield { kind: 'tooLarge', what, of: 'resourceSpans', index: 0, offset: rs.at };
        else if (rs.field === 1) {
          const bytes = await r.bytes(length);
          yield { kind: 'resource', resource: decode(ResourceCodec, bytes, 'resource', rs.at) };
        } else {
          const bytes = await r.bytes(length);
          yield { kind: 'resourceSchemaUrl', schemaUrl: bytes.toString('utf8') };
        }
      } else {
        const ssEnd = await lengthEnd(r);
        yield { kind: 'scopeSpans', index: scopeIndex++ };
        let spanIndex = 0;
        for await (const ss of fields(r, ssEnd)) {
          if (ss.wireType !== 2 || ss.field > 3) {
            await r.skip(ss.wireType);
            continue;
          }
          const length = await within();
          if (length === undefined) {
            const what = ss.field === 1 ? 'scope' : ss.field === 3 ? 'schemaUrl' : 'span';
            const index = ss.field === 2 ? spanIndex++ : 0;
            yield { kind: 'tooLarge', what, of: 'scopeSpans', index, offset: ss.at };
            continue;
          }
          const bytes = await r.bytes(length);
          if (ss.field === 1) yield { kind: 'scope', scope: decode(ScopeCodec, bytes, 'scope', ss.at) };
          else if (ss.field === 3) yield { kind: 'scopeSchemaUrl', schemaUrl: bytes.toString('utf8') };
          else
            yield {
              kind: 'span',
              span: decode(SpanCodec, bytes, 'span', ss.at),
              index: spanIndex++,
              offset: ss.at,
            };
        }
        yield { kind: 'end', of: 'scopeSpans' };
      }
    }
    yield { kind: 'end', of: 'resourceSpans' };
  }
}
