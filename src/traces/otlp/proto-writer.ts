// A protobuf writer over one growing buffer, for writing spans straight from their JSON (span-writer.ts)
// without building the objects protobufjs's encoder needs first. protobufjs's writer keeps a list of
// operations per field and replays it at the end; here every field is written where it goes, and a
// nested message's length is written in front of it once its end is known (moving the body when the
// length takes more bytes than were kept for it).
//
// What it writes is checked against OpenTelemetry's own decoder (test/traces/otlp/span-writer.test.ts).

/** The bytes a varint of `n` (0 ≤ n < 2^32) takes. */
export function varintSize(n: number): number {
  return n < 0x80 ? 1 : n < 0x4000 ? 2 : n < 0x200000 ? 3 : n < 0x10000000 ? 4 : 5;
}

export class ProtoWriter {
  buf: Buffer;
  pos = 0;

  constructor(capacity = 64 * 1024) {
    this.buf = Buffer.allocUnsafeSlow(capacity);
  }

  /** Room for `n` more bytes. */
  ensure(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.pos + n) size *= 2;
    const grown = Buffer.allocUnsafeSlow(size);
    this.buf.copy(grown, 0, 0, this.pos);
    this.buf = grown;
  }

  /** A varint below 2^32 (tags, lengths, uint32 and enum values); the caller made room (5 bytes). */
  varint(n: number): void {
    const buf = this.buf;
    let pos = this.pos;
    n >>>= 0;
    while (n > 0x7f) {
      buf[pos++] = (n & 0x7f) | 0x80;
      n >>>= 7;
    }
    buf[pos++] = n;
    this.pos = pos;
  }

  tag(field: number, wireType: number): void {
    this.ensure(5);
    this.varint(field * 8 + wireType);
  }

  /** A 64-bit varint from its halves (int64 fields, negatives in two's complement: 10 bytes). */
  varint64(low: number, high: number): void {
    this.ensure(10);
    const buf = this.buf;
    let pos = this.pos;
    low >>>= 0;
    high >>>= 0;
    while (high > 0) {
      buf[pos++] = (low & 0x7f) | 0x80;
      low = ((low >>> 7) | (high << 25)) >>> 0;
      high >>>= 7;
    }
    while (low > 0x7f) {
      buf[pos++] = (low & 0x7f) | 0x80;
      low >>>= 7;
    }
    buf[pos++] = low;
    this.pos = pos;
  }

  fixed32(n: number): void {
    this.ensure(4);
    this.buf.writeUInt32LE(n >>> 0, this.pos);
    this.pos += 4;
  }

  fixed64(low: number, high: number): void {
    this.ensure(8);
    this.buf.writeUInt32LE(low >>> 0, this.pos);
    this.buf.writeUInt32LE(high >>> 0, this.pos + 4);
    this.pos += 8;
  }

  double(n: number): void {
    this.ensure(8);
    this.buf.writeDoubleLE(n, this.pos);
    this.pos += 8;
  }

  /** A length-delimited string (UTF-8; a lone surrogate becomes U+FFFD, as Buffer and TextEncoder do). */
  string(s: string): void {
    const length = s.length;
    // Short ASCII, the usual attribute key or value, byte by byte: cheaper than a call into C++.
    if (length < 0x80) {
      this.ensure(length + 1);
      const buf = this.buf;
      const start = this.pos;
      let k = 0;
      for (; k < length; k++) {
        const c = s.charCodeAt(k);
        if (c >= 0x80) break;
        buf[start + 1 + k] = c;
      }
      if (k === length) {
        buf[start] = length;
        this.pos = start + 1 + length;
        return;
      }
    }
    const bytes = Buffer.byteLength(s, 'utf8');
    this.ensure(bytes + 5);
    this.varint(bytes);
    this.pos += this.buf.write(s, this.pos, bytes, 'utf8');
  }

  /** Raw bytes, length-delimited. */
  bytes(b: Uint8Array): void {
    this.ensure(b.length + 5);
    this.varint(b.length);
    this.buf.set(b, this.pos);
    this.pos += b.length;
  }

  /**
   * Starts a nested message: keeps `reserve` bytes for its length, to be filled in by `end`. Keep the
   * bytes its length will usually take: a guess short or long costs a move of the body.
   */
  begin(reserve = 1): number {
    this.ensure(reserve);
    const start = this.pos;
    this.pos += reserve;
    return start;
  }

  /** Ends the nested message begun at `start`, writing its length there. */
  end(start: number, reserve = 1): void {
    const length = this.pos - start - reserve;
    const size = varintSize(length);
    if (size !== reserve) {
      this.ensure(size - reserve);
      this.buf.copyWithin(start + size, start + reserve, this.pos);
      this.pos += size - reserve;
    }
    const after = this.pos;
    this.pos = start;
    this.varint(length);
    this.pos = after;
  }
}
