// A span from the bytes of its OTLP/JSON straight to protobuf: no JSON.parse, no UTF-8 decoding, no
// objects. It takes what the fast lane (span-writer.ts, otlp-json-fast.ts) takes, written as plainly
// as JSON writers write it; at anything else (a key it does not know, a duplicate key, an escape in an
// id, a number that is not a plain integer where one is expected) it gives up (json-cursor.ts), and
// the caller reads the line the ordinary way. Field numbers as in span-writer.ts.

import { halves, readDecimalBytes, setSafeInteger } from './decimal64.js';
import { HEX_DIGITS } from './hex-digits.js';
import {
  CLOSE_ARRAY,
  CLOSE_OBJECT,
  giveUp,
  type JsonCursor,
  keyTable,
  OPEN_ARRAY,
  OPEN_OBJECT,
  QUOTE,
} from './json-cursor.js';
import { ANY_VALUE_FIELDS } from './otlp-json.js';
import { BASE64 } from './otlp-json-fast.js';
import type { ProtoWriter } from './proto-writer.js';

/** The string just read (its escapes decoded), length-delimited. */
function copyString(c: JsonCursor, w: ProtoWriter): void {
  const src = c.src;
  const start = c.strStart;
  const end = c.strEnd;
  const n = end - start;
  if (!c.strEscaped) {
    w.ensure(n + 5);
    w.varint(n);
    const buf = w.buf;
    // Short ones byte by byte: cheaper than a call into C++.
    if (n < 48) for (let k = 0; k < n; k++) buf[w.pos + k] = src[start + k]!;
    else src.copy(buf, w.pos, start, end);
    w.pos += n;
    return;
  }
  // Decoded, a string is never longer than written with escapes.
  const at = w.begin(n < 0x80 ? 1 : 2);
  w.ensure(n);
  const buf = w.buf;
  let pos = w.pos;
  let k = start;
  while (k < end) {
    const b = src[k]!;
    if (b !== 92) {
      buf[pos++] = b;
      k++;
      continue;
    }
    const e = src[k + 1];
    k += 2;
    if (e === 0x22 || e === 0x5c || e === 0x2f) buf[pos++] = e;
    else if (e === 0x6e) buf[pos++] = 0x0a;
    else if (e === 0x74) buf[pos++] = 0x09;
    else if (e === 0x72) buf[pos++] = 0x0d;
    else if (e === 0x62) buf[pos++] = 0x08;
    else if (e === 0x66) buf[pos++] = 0x0c;
    else if (e === 0x75) {
      let unit = hex4(src, k, end);
      k += 4;
      if (unit >= 0xd800 && unit <= 0xdbff && src[k] === 92 && src[k + 1] === 0x75) {
        const low = hex4(src, k + 2, end);
        if (low >= 0xdc00 && low <= 0xdfff) {
          unit = 0x10000 + ((unit - 0xd800) << 10) + (low - 0xdc00);
          k += 6;
        }
      }
      // A lone surrogate has no UTF-8: U+FFFD, as TextEncoder and Buffer write it.
      if (unit >= 0xd800 && unit <= 0xdfff) unit = 0xfffd;
      pos = utf8(buf, pos, unit);
    } else giveUp();
  }
  w.pos = pos;
  w.end(at, n < 0x80 ? 1 : 2);
}

/** Four hex digits as a number (an escape `\uXXXX`). */
function hex4(src: Buffer, k: number, end: number): number {
  if (k + 4 > end) giveUp();
  const a = HEX_DIGITS[src[k]!]!;
  const b = HEX_DIGITS[src[k + 1]!]!;
  const c = HEX_DIGITS[src[k + 2]!]!;
  const d = HEX_DIGITS[src[k + 3]!]!;
  if ((a | b | c | d) < 0) giveUp();
  return (a << 12) | (b << 8) | (c << 4) | d;
}

function utf8(buf: Buffer, pos: number, cp: number): number {
  if (cp < 0x80) buf[pos++] = cp;
  else if (cp < 0x800) {
    buf[pos++] = 0xc0 | (cp >> 6);
    buf[pos++] = 0x80 | (cp & 0x3f);
  } else if (cp < 0x10000) {
    buf[pos++] = 0xe0 | (cp >> 12);
    buf[pos++] = 0x80 | ((cp >> 6) & 0x3f);
    buf[pos++] = 0x80 | (cp & 0x3f);
  } else {
    buf[pos++] = 0xf0 | (cp >> 18);
    buf[pos++] = 0x80 | ((cp >> 12) & 0x3f);
    buf[pos++] = 0x80 | ((cp >> 6) & 0x3f);
    buf[pos++] = 0x80 | (cp & 0x3f);
  }
  return pos;
}

function stringField(c: JsonCursor, w: ProtoWriter, field: number): void {
  c.string();
  w.tag(field, 2);
  copyString(c, w);
}

/** A hex id of `size` bytes, not all zeros, as field `field`; empty (`""`) only if `optional`. */
function idField(c: JsonCursor, w: ProtoWriter, field: number, size: number, optional = false): void {
  c.plainString();
  const src = c.src;
  const start = c.strStart;
  if (optional && c.strEnd === start) return;
  if (c.strEnd - start !== size * 2) giveUp();
  w.tag(field, 2);
  w.ensure(size + 1);
  const buf = w.buf;
  let pos = w.pos;
  buf[pos++] = size;
  let any = 0;
  for (let k = 0; k < size; k++) {
    const h = HEX_DIGITS[src[start + 2 * k]!]!;
    const l = HEX_DIGITS[src[start + 2 * k + 1]!]!;
    if ((h | l) < 0) giveUp();
    const byte = (h << 4) | l;
    any |= byte;
    buf[pos++] = byte;
  }
  if (any === 0) giveUp();
  w.pos = pos;
}

/** A 64-bit integer, a string of digits or a plain number, into `halves`. */
function int64(c: JsonCursor, signed: boolean): void {
  if (c.peek() === QUOTE) {
    c.plainString();
    if (!readDecimalBytes(c.src, c.strStart, c.strEnd, signed)) giveUp();
    return;
  }
  c.number();
  if (!c.numSmall || (!signed && c.numValue < 0)) giveUp();
  setSafeInteger(c.numValue);
}

function fixed64Field(c: JsonCursor, w: ProtoWriter, field: number): void {
  int64(c, false);
  w.tag(field, 1);
  w.fixed64(halves.low, halves.high);
}

/** An integer from 0 to `max`. */
function smallInteger(c: JsonCursor, max: number): number {
  c.number();
  const v = c.numValue;
  if (!c.numSmall || v < 0 || v > max) giveUp();
  return v;
}

function uint32Field(c: JsonCursor, w: ProtoWriter, field: number): void {
  const v = smallInteger(c, 0xffffffff);
  w.tag(field, 0);
  w.varint(v);
}

function fixed32Field(c: JsonCursor, w: ProtoWriter, field: number): void {
  const v = smallInteger(c, 0xffffffff);
  w.tag(field, 5);
  w.fixed32(v);
}

/** Each element of an array (after `null` was ruled out), as a message of field `field`. */
function messages(
  c: JsonCursor,
  w: ProtoWriter,
  field: number,
  item: (c: JsonCursor, w: ProtoWriter) => void,
) {
  if (!c.open(OPEN_ARRAY, CLOSE_ARRAY)) return;
  do {
    w.tag(field, 2);
    const at = w.begin();
    item(c, w);
    w.end(at);
  } while (c.more(CLOSE_ARRAY));
}

// Field k of AnyValue is index k - 1: the switch below dispatches on it.
const ANY_VALUE_KEYS = keyTable(ANY_VALUE_FIELDS);
const VALUES_KEY = keyTable(['values']);

/** An AnyValue's fields; at most one of them set (`null` is not set). */
function anyValue(c: JsonCursor, w: ProtoWriter, depth: number): void {
  if (depth > 32) giveUp();
  let seen = 0;
  let set = 0;
  if (c.open(OPEN_OBJECT, CLOSE_OBJECT))
    do {
      const k = c.key(ANY_VALUE_KEYS);
      if (seen & (1 << k)) giveUp();
      seen |= 1 << k;
      if (c.isNull()) continue;
      if (++set > 1) giveUp();
      switch (k) {
        case 0:
          stringField(c, w, 1);
          break;
        case 1: {
          const b = c.boolean();
          w.tag(2, 0);
          w.varint(b ? 1 : 0);
          break;
        }
        case 2:
          int64(c, true);
          w.tag(3, 0);
          w.varint64(halves.low, halves.high);
          break;
        case 3: {
          c.number();
          const d = c.numberValue();
          w.tag(4, 1);
          w.double(d);
          break;
        }
        case 4:
          w.tag(5, 2);
          wrapped(c, w, (c, w) => {
            if (!c.isNull()) messages(c, w, 1, (c, w) => anyValue(c, w, depth + 1));
          });
          break;
        case 5:
          w.tag(6, 2);
          wrapped(c, w, (c, w) => {
            if (!c.isNull()) attributes(c, w, 1, depth + 1);
          });
          break;
        default: {
          c.plainString();
          const text = c.src.toString('latin1', c.strStart, c.strEnd);
          if (!BASE64.test(text)) giveUp();
          w.tag(7, 2);
          w.bytes(Buffer.from(text, 'base64'));
        }
      }
    } while (c.more(CLOSE_OBJECT));
}

/** ArrayValue or KeyValueList: an object whose one key is `values`, written by `values`. */
function wrapped(c: JsonCursor, w: ProtoWriter, values: (c: JsonCursor, w: ProtoWriter) => void): void {
  const at = w.begin();
  if (c.open(OPEN_OBJECT, CLOSE_OBJECT)) {
    c.key(VALUES_KEY);
    values(c, w);
    if (c.more(CLOSE_OBJECT)) giveUp(); // a second key: `values` again, or one not known
  }
  w.end(at);
}

const KEY_VALUE_KEYS = keyTable(['key', 'value']);

/** A list of KeyValue as repeated field `field` (after `null` was ruled out). */
function attributes(c: JsonCursor, w: ProtoWriter, field: number, depth: number): void {
  messages(c, w, field, (c, w) => {
    let seen = 0;
    if (c.open(OPEN_OBJECT, CLOSE_OBJECT))
      do {
        const k = c.key(KEY_VALUE_KEYS);
        if (seen & (1 << k)) giveUp();
        seen |= 1 << k;
        if (k === 0) stringField(c, w, 1);
        else if (!c.isNull()) {
          w.tag(2, 2);
          const at = w.begin();
          anyValue(c, w, depth);
          w.end(at);
        }
      } while (c.more(CLOSE_OBJECT));
    if (!(seen & 1)) giveUp(); // a key is required
  });
}

const EVENT_KEYS = keyTable(['timeUnixNano', 'name', 'attributes', 'droppedAttributesCount']);

function event(c: JsonCursor, w: ProtoWriter): void {
  let seen = 0;
  if (c.open(OPEN_OBJECT, CLOSE_OBJECT))
    do {
      const k = c.key(EVENT_KEYS);
      if (seen & (1 << k)) giveUp();
      seen |= 1 << k;
      if (c.isNull()) continue;
      if (k === 0) fixed64Field(c, w, 1);
      else if (k === 1) stringField(c, w, 2);
      else if (k === 2) attributes(c, w, 3, 0);
      else uint32Field(c, w, 4);
    } while (c.more(CLOSE_OBJECT));
}

const LINK_KEYS = keyTable([
  'traceId',
  'spanId',
  'traceState',
  'attributes',
  'droppedAttributesCount',
  'flags',
]);

function link(c: JsonCursor, w: ProtoWriter): void {
  let seen = 0;
  let ids = 0;
  if (c.open(OPEN_OBJECT, CLOSE_OBJECT))
    do {
      const k = c.key(LINK_KEYS);
      if (seen & (1 << k)) giveUp();
      seen |= 1 << k;
      if (c.isNull()) continue;
      if (k === 0) idField(c, w, 1, 16);
      else if (k === 1) idField(c, w, 2, 8);
      else if (k === 2) stringField(c, w, 3);
      else if (k === 3) attributes(c, w, 4, 0);
      else if (k === 4) uint32Field(c, w, 5);
      else fixed32Field(c, w, 6);
      if (k < 2) ids |= 1 << k;
    } while (c.more(CLOSE_OBJECT));
  if (ids !== 3) giveUp();
}

const STATUS_KEYS = keyTable(['message', 'code']);

function status(c: JsonCursor, w: ProtoWriter): void {
  let seen = 0;
  w.tag(15, 2);
  const at = w.begin();
  if (c.open(OPEN_OBJECT, CLOSE_OBJECT))
    do {
      const k = c.key(STATUS_KEYS);
      if (seen & (1 << k)) giveUp();
      seen |= 1 << k;
      if (c.isNull()) continue;
      if (k === 0) stringField(c, w, 2);
      else {
        const code = smallInteger(c, 2);
        w.tag(3, 0);
        w.varint(code);
      }
    } while (c.more(CLOSE_OBJECT));
  w.end(at);
}

const SPAN_KEYS = keyTable([
  'traceId',
  'spanId',
  'name',
  'parentSpanId',
  'traceState',
  'flags',
  'kind',
  'startTimeUnixNano',
  'endTimeUnixNano',
  'attributes',
  'droppedAttributesCount',
  'events',
  'droppedEventsCount',
  'links',
  'droppedLinksCount',
  'status',
]);

/**
 * Writes the span whose JSON object is next as a `spans` field of ScopeSpans (field 2). Gives up
 * (json-cursor.ts) at anything the fast lane would not take as it is; what was written is then the
 * caller's to take back.
 */
export function transcodeSpan(c: JsonCursor, w: ProtoWriter): void {
  w.tag(2, 2);
  const at = w.begin(2);
  let seen = 0;
  let required = 0;
  if (c.open(OPEN_OBJECT, CLOSE_OBJECT))
    do {
      const k = c.key(SPAN_KEYS);
      if (seen & (1 << k)) giveUp();
      seen |= 1 << k;
      if (c.isNull()) continue;
      switch (k) {
        case 0:
          idField(c, w, 1, 16);
          break;
        case 1:
          idField(c, w, 2, 8);
          break;
        case 2:
          stringField(c, w, 5);
          if (c.strEnd === c.strStart) giveUp(); // a span needs a name
          break;
        case 3:
          idField(c, w, 4, 8, true);
          break;
        case 4:
          stringField(c, w, 3);
          break;
        case 5:
          fixed32Field(c, w, 16);
          break;
        case 6: {
          const kind = smallInteger(c, 5);
          w.tag(6, 0);
          w.varint(kind);
          break;
        }
        case 7:
          fixed64Field(c, w, 7);
          break;
        case 8:
          fixed64Field(c, w, 8);
          break;
        case 9:
          attributes(c, w, 9, 0);
          break;
        case 10:
          uint32Field(c, w, 10);
          break;
        case 11:
          messages(c, w, 11, event);
          break;
        case 12:
          uint32Field(c, w, 12);
          break;
        case 13:
          messages(c, w, 13, link);
          break;
        case 14:
          uint32Field(c, w, 14);
          break;
        default:
          status(c, w);
      }
      if (k < 3) required |= 1 << k;
    } while (c.more(CLOSE_OBJECT));
  if (required !== 7) giveUp(); // trace id, span id and name
  w.end(at, 2);
}
