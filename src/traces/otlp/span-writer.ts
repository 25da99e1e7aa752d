// A span straight from its OTLP/JSON to protobuf, checked as it is written: the fast lane of sending.
// It accepts exactly what the fast lane of checking (otlp-json-fast.ts) accepts and leaves the parsed
// object as it found it; at the first thing that is not plainly right it gives up, the caller takes
// back what was written (`ProtoWriter.pos`) and the span goes through the precise checker, which says
// what and where. Sending a million spans is mostly JSON.parse and this function.
//
// Field numbers are opentelemetry-proto's (trace/v1/trace.proto, common/v1/common.proto). A field of
// a oneof (AnyValue's) is written even when it holds its default, so that the decoder sees which one
// was set; other fields are written whenever the JSON has them, as protobufjs's encoder does.

import { isObject } from '../../lib/json.js';
import { halves, readDecimalString, setSafeInteger } from './decimal64.js';
import { HEX_DIGITS } from './hex-digits.js';
import { BASE64, isUint32 } from './otlp-json-fast.js';
import type { ProtoWriter } from './proto-writer.js';

/** A field of a hex id of `size` bytes, not all zeros; false (nothing written that counts) if it is not one. */
function writeId(w: ProtoWriter, tag: number, v: unknown, size: number): boolean {
  if (typeof v !== 'string' || v.length !== size * 2) return false;
  w.ensure(size + 2);
  const buf = w.buf;
  let pos = w.pos;
  buf[pos++] = tag;
  buf[pos++] = size;
  let any = 0;
  for (let k = 0; k < size; k++) {
    const hi = v.charCodeAt(2 * k);
    const lo = v.charCodeAt(2 * k + 1);
    const h = hi < 256 ? HEX_DIGITS[hi]! : -1;
    const l = lo < 256 ? HEX_DIGITS[lo]! : -1;
    if (h < 0 || l < 0) return false;
    const byte = (h << 4) | l;
    any |= byte;
    buf[pos++] = byte;
  }
  if (any === 0) return false;
  w.pos = pos;
  return true;
}

/** A 64-bit field from a decimal string or a safe integer: fixed64, or a varint for int64. */
function writeInt64(w: ProtoWriter, tag: number, v: unknown, signed: boolean, fixed: boolean): boolean {
  if (typeof v === 'string') {
    if (!readDecimalString(v, signed)) return false;
  } else if (typeof v === 'number' && Number.isSafeInteger(v) && (signed || v >= 0)) setSafeInteger(v);
  else return false;
  w.tag(tag >>> 3, tag & 7);
  if (fixed) w.fixed64(halves.low, halves.high);
  else w.varint64(halves.low, halves.high);
  return true;
}

function writeUint32(w: ProtoWriter, field: number, v: unknown): boolean {
  if (v == null) return true;
  if (!isUint32(v)) return false;
  w.tag(field, 0);
  w.ensure(5);
  w.varint(v);
  return true;
}

function writeString(w: ProtoWriter, field: number, v: unknown): boolean {
  if (v == null) return true;
  if (typeof v !== 'string') return false;
  w.tag(field, 2);
  w.string(v);
  return true;
}

/** An AnyValue's fields (the message's length is the caller's). At most one may be set. */
function writeAnyValue(w: ProtoWriter, v: unknown, depth: number): boolean {
  if (!isObject(v) || depth > 32) return false;
  let set = 0;
  const s = v.stringValue;
  if (s != null) {
    if (typeof s !== 'string') return false;
    w.tag(1, 2);
    w.string(s);
    set++;
  }
  const b = v.boolValue;
  if (b != null) {
    if (typeof b !== 'boolean') return false;
    w.tag(2, 0);
    w.varint(b ? 1 : 0);
    set++;
  }
  const i = v.intValue;
  if (i != null) {
    if (!writeInt64(w, (3 << 3) | 0, i, true, false)) return false;
    set++;
  }
  const d = v.doubleValue;
  if (d != null) {
    if (typeof d !== 'number') return false;
    w.tag(4, 1);
    w.double(d);
    set++;
  }
  const bytes = v.bytesValue;
  if (bytes != null) {
    if (typeof bytes !== 'string' || !BASE64.test(bytes)) return false;
    w.tag(7, 2);
    w.bytes(Buffer.from(bytes, 'base64'));
    set++;
  }
  const array = v.arrayValue;
  if (array != null) {
    if (!isObject(array)) return false;
    const values = array.values;
    w.tag(5, 2);
    const at = w.begin();
    if (values != null) {
      if (!Array.isArray(values)) return false;
      for (let k = 0; k < values.length; k++) {
        w.tag(1, 2);
        const item = w.begin();
        if (!writeAnyValue(w, values[k], depth + 1)) return false;
        w.end(item);
      }
    }
    w.end(at);
    set++;
  }
  const kvlist = v.kvlistValue;
  if (kvlist != null) {
    if (!isObject(kvlist)) return false;
    w.tag(6, 2);
    const at = w.begin();
    if (!writeAttributes(w, 1, kvlist.values, depth + 1)) return false;
    w.end(at);
    set++;
  }
  return set <= 1;
}

/** A list of KeyValue as repeated field `field`. */
function writeAttributes(w: ProtoWriter, field: number, list: unknown, depth: number): boolean {
  if (list == null) return true;
  if (!Array.isArray(list)) return false;
  for (let k = 0; k < list.length; k++) {
    const kv = list[k];
    if (!isObject(kv) || typeof kv.key !== 'string') return false;
    w.tag(field, 2);
    const at = w.begin();
    w.tag(1, 2);
    w.string(kv.key);
    const value = kv.value;
    if (value != null) {
      w.tag(2, 2);
      const inner = w.begin();
      if (!writeAnyValue(w, value, depth)) return false;
      w.end(inner);
    }
    w.end(at);
  }
  return true;
}

function writeEvent(w: ProtoWriter, e: unknown): boolean {
  if (!isObject(e)) return false;
  if (e.timeUnixNano != null && !writeInt64(w, (1 << 3) | 1, e.timeUnixNano, false, true)) return false;
  return (
    writeString(w, 2, e.name) &&
    writeAttributes(w, 3, e.attributes, 0) &&
    writeUint32(w, 4, e.droppedAttributesCount)
  );
}

function writeLink(w: ProtoWriter, l: unknown): boolean {
  if (!isObject(l)) return false;
  if (!writeId(w, 0x0a, l.traceId, 16) || !writeId(w, 0x12, l.spanId, 8)) return false;
  if (!writeString(w, 3, l.traceState) || !writeAttributes(w, 4, l.attributes, 0)) return false;
  if (!writeUint32(w, 5, l.droppedAttributesCount)) return false;
  if (l.flags != null) {
    if (!isUint32(l.flags)) return false;
    w.tag(6, 5);
    w.fixed32(l.flags);
  }
  return true;
}

/** Repeated message field `field`, each item written by `item`. */
function writeList(
  w: ProtoWriter,
  field: number,
  value: unknown,
  item: (w: ProtoWriter, v: unknown) => boolean,
): boolean {
  if (value == null) return true;
  if (!Array.isArray(value)) return false;
  for (let k = 0; k < value.length; k++) {
    w.tag(field, 2);
    const at = w.begin();
    if (!item(w, value[k])) return false;
    w.end(at);
  }
  return true;
}

function writeSpanFields(w: ProtoWriter, v: Record<string, unknown>): boolean {
  if (!writeId(w, 0x0a, v.traceId, 16) || !writeId(w, 0x12, v.spanId, 8)) return false;
  const parent = v.parentSpanId;
  if (parent != null && parent !== '' && !writeId(w, 0x22, parent, 8)) return false;
  if (typeof v.name !== 'string' || v.name === '') return false;
  w.tag(5, 2);
  w.string(v.name);
  if (!writeString(w, 3, v.traceState)) return false;
  if (v.flags != null) {
    if (!isUint32(v.flags)) return false;
    w.tag(16, 5);
    w.fixed32(v.flags);
  }
  const kind = v.kind;
  if (kind != null) {
    if (!(typeof kind === 'number' && kind >= 0 && kind <= 5 && Number.isInteger(kind))) return false;
    w.tag(6, 0);
    w.varint(kind);
  }
  if (v.startTimeUnixNano != null && !writeInt64(w, (7 << 3) | 1, v.startTimeUnixNano, false, true))
    return false;
  if (v.endTimeUnixNano != null && !writeInt64(w, (8 << 3) | 1, v.endTimeUnixNano, false, true)) return false;
  if (!writeAttributes(w, 9, v.attributes, 0) || !writeUint32(w, 10, v.droppedAttributesCount)) return false;
  if (!writeList(w, 11, v.events, writeEvent) || !writeUint32(w, 12, v.droppedEventsCount)) return false;
  if (!writeList(w, 13, v.links, writeLink) || !writeUint32(w, 14, v.droppedLinksCount)) return false;
  const status = v.status;
  if (status != null) {
    if (!isObject(status)) return false;
    w.tag(15, 2);
    const at = w.begin();
    if (!writeString(w, 2, status.message)) return false;
    const code = status.code;
    if (code != null) {
      if (!(typeof code === 'number' && code >= 0 && code <= 2 && Number.isInteger(code))) return false;
      w.tag(3, 0);
      w.varint(code);
    }
    w.end(at);
  }
  return true;
}

/**
 * Writes the span as a `spans` field of ScopeSpans (field 2), checking it as it goes. False, with the
 * writer back where it was, at the first thing the fast lane does not take.
 */
export function writeJsonSpan(w: ProtoWriter, v: unknown): boolean {
  const start = w.pos;
  if (isObject(v)) {
    w.tag(2, 2);
    const at = w.begin(2);
    if (writeSpanFields(w, v)) {
      w.end(at, 2);
      return true;
    }
  }
  w.pos = start;
  return false;
}
