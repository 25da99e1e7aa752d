// The fast lane of checking OTLP/JSON spans (otlp-json.ts): plain property reads, no paths, no
// messages, converting in place as it goes, and giving up at the first thing that is not right. A
// span it gives up on goes through the precise checker, which says what and where; it accepts what
// this lane already converted. Sending a million spans is mostly this function and JSON.parse.

import { isObject } from '../../lib/json.js';
import { type Int64, int64 } from './otlp.js';

const SIGNED = /^-?\d{1,20}$/;
const UNSIGNED = /^\d{1,20}$/;
// Base64 (standard or URL-safe, padded or not): a length of 1 more than a multiple of 4 is not.
export const BASE64 = /^(?:[A-Za-z0-9+/_-]{4})*(?:[A-Za-z0-9+/_-]{2}(?:==)?|[A-Za-z0-9+/_-]{3}=?)?$/;
export const ZEROS = /^0+$/;

/** Does a decimal string fit in 64 bits (signed: -2^63 to 2^63-1; unsigned: 0 to 2^64-1)? */
export function fitsInt64(text: string, signed: boolean): boolean {
  const negative = text.startsWith('-');
  let digits = negative ? text.slice(1) : text;
  if (digits.length > 1 && digits.startsWith('0')) digits = digits.replace(/^0+(?=\d)/, '');
  const limit = signed ? (negative ? '9223372036854775808' : '9223372036854775807') : '18446744073709551615';
  return digits.length < limit.length || (digits.length === limit.length && digits <= limit);
}

/** Already converted (by this lane, or the precise one): 64-bit halves. */
export const isInt64 = (v: unknown): v is Int64 =>
  typeof v === 'object' &&
  v !== null &&
  typeof (v as Int64).low === 'number' &&
  typeof (v as Int64).high === 'number';

/** int64 / fixed64 from JSON, or undefined when it is not one. */
export function toInt64(v: unknown, signed: boolean): Int64 | undefined {
  if (typeof v === 'string') {
    return (signed ? SIGNED : UNSIGNED).test(v) && fitsInt64(v, signed) ? int64(v) : undefined;
  }
  if (typeof v === 'number') {
    return Number.isSafeInteger(v) && (signed || v >= 0) ? int64(v) : undefined;
  }
  return isInt64(v) ? v : undefined;
}

/** A hex id of `bytes` bytes, not all zeros, as bytes (or undefined). Converted ids pass. */
export function toId(v: unknown, bytes: number): Uint8Array | undefined {
  if (v instanceof Uint8Array) return v.length === bytes ? v : undefined;
  if (typeof v !== 'string' || v.length !== bytes * 2 || ZEROS.test(v)) return undefined;
  // Buffer.from stops at the first character that is not hex: a short result is a bad id.
  const id = Buffer.from(v, 'hex');
  return id.length === bytes ? id : undefined;
}

/** A whole number from 0 to 2^32-1 (uint32 fields, fixed32 flags). */
export const isUint32 = (v: unknown): v is number =>
  typeof v === 'number' && v >= 0 && v <= 0xffffffff && Number.isInteger(v);

function anyValue(v: unknown, depth: number): boolean {
  if (!isObject(v) || depth > 32) return false;
  let set = 0;
  const s = v.stringValue;
  if (s != null) {
    if (typeof s !== 'string') return false;
    set++;
  }
  const b = v.boolValue;
  if (b != null) {
    if (typeof b !== 'boolean') return false;
    set++;
  }
  const i = v.intValue;
  if (i != null) {
    const n = toInt64(i, true);
    if (!n) return false;
    v.intValue = n;
    set++;
  }
  const d = v.doubleValue;
  if (d != null) {
    if (typeof d !== 'number') return false;
    set++;
  }
  const bytes = v.bytesValue;
  if (bytes != null) {
    if (typeof bytes !== 'string' || !BASE64.test(bytes)) return false;
    set++;
  }
  const array = v.arrayValue;
  if (array != null) {
    if (!isObject(array)) return false;
    const values = array.values;
    if (values == null) array.values = [];
    else if (!Array.isArray(values)) return false;
    else for (let k = 0; k < values.length; k++) if (!anyValue(values[k], depth + 1)) return false;
    set++;
  }
  const kvlist = v.kvlistValue;
  if (kvlist != null) {
    if (!isObject(kvlist) || !attributes(kvlist.values, depth + 1)) return false;
    if (kvlist.values == null) kvlist.values = [];
    set++;
  }
  return set <= 1;
}

function attributes(list: unknown, depth: number): boolean {
  if (list == null) return true;
  if (!Array.isArray(list)) return false;
  for (let k = 0; k < list.length; k++) {
    const kv = list[k];
    if (!isObject(kv) || typeof kv.key !== 'string') return false;
    if (kv.value != null && !anyValue(kv.value, depth)) return false;
  }
  return true;
}

function event(e: unknown): boolean {
  if (!isObject(e)) return false;
  if (e.timeUnixNano != null) {
    const t = toInt64(e.timeUnixNano, false);
    if (!t) return false;
    e.timeUnixNano = t;
  }
  if (e.name != null && typeof e.name !== 'string') return false;
  if (e.droppedAttributesCount != null && !isUint32(e.droppedAttributesCount)) return false;
  return attributes(e.attributes, 0);
}

function link(l: unknown): boolean {
  if (!isObject(l)) return false;
  const traceId = toId(l.traceId, 16);
  const spanId = toId(l.spanId, 8);
  if (!traceId || !spanId) return false;
  l.traceId = traceId;
  l.spanId = spanId;
  if (l.traceState != null && typeof l.traceState !== 'string') return false;
  if (l.droppedAttributesCount != null && !isUint32(l.droppedAttributesCount)) return false;
  if (l.flags != null && !isUint32(l.flags)) return false;
  return attributes(l.attributes, 0);
}

function list(value: unknown, item: (v: unknown) => boolean): boolean {
  if (value == null) return true;
  if (!Array.isArray(value)) return false;
  for (let k = 0; k < value.length; k++) if (!item(value[k])) return false;
  return true;
}

/** Checks a span and converts it in place; false at the first problem (nothing said about it). */
export function fastSpan(v: unknown): boolean {
  if (!isObject(v)) return false;
  const traceId = toId(v.traceId, 16);
  const spanId = toId(v.spanId, 8);
  if (!traceId || !spanId) return false;
  v.traceId = traceId;
  v.spanId = spanId;
  const parent = v.parentSpanId;
  if (parent === '') v.parentSpanId = null;
  else if (parent != null) {
    const id = toId(parent, 8);
    if (!id) return false;
    v.parentSpanId = id;
  }
  if (typeof v.name !== 'string' || v.name === '') return false;
  if (v.traceState != null && typeof v.traceState !== 'string') return false;
  if (v.flags != null && !isUint32(v.flags)) return false;
  const kind = v.kind;
  if (kind != null && !(typeof kind === 'number' && kind >= 0 && kind <= 5 && Number.isInteger(kind)))
    return false;
  if (v.startTimeUnixNano != null) {
    const t = toInt64(v.startTimeUnixNano, false);
    if (!t) return false;
    v.startTimeUnixNano = t;
  }
  if (v.endTimeUnixNano != null) {
    const t = toInt64(v.endTimeUnixNano, false);
    if (!t) return false;
    v.endTimeUnixNano = t;
  }
  if (!attributes(v.attributes, 0)) return false;
  if (v.droppedAttributesCount != null && !isUint32(v.droppedAttributesCount)) return false;
  if (!list(v.events, event)) return false;
  if (v.droppedEventsCount != null && !isUint32(v.droppedEventsCount)) return false;
  if (!list(v.links, link)) return false;
  if (v.droppedLinksCount != null && !isUint32(v.droppedLinksCount)) return false;
  const status = v.status;
  if (status != null) {
    if (!isObject(status)) return false;
    if (status.message != null && typeof status.message !== 'string') return false;
    const code = status.code;
    if (code != null && !(typeof code === 'number' && code >= 0 && code <= 2 && Number.isInteger(code)))
      return false;
  }
  return true;
}
