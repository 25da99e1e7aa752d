// OTLP/JSON (the OTLP specification's JSON encoding: lowerCamelCase keys, trace and span ids in hex,
// 64-bit integers as decimal strings, enums as integers) to the protobuf messages and back.
//
// fromJson: checks, and makes the JSON objects themselves encodable (see Checker); every problem is
// reported with its JSON path, so that one run lists them all; unknown keys are ignored (the encoder
// never looks at them), as the specification asks of receivers. toJson: the canonical form, with the
// fields that hold their default value left out, which is how the emulator shows what it stored.

import { isObject } from '../../lib/json.js';
import {
  type Int64,
  int64String,
  type PbAnyValue,
  type PbKeyValue,
  type PbResource,
  type PbScope,
  type PbSpan,
  SPAN_KINDS,
  STATUS_CODES,
} from './otlp.js';
import { BASE64, fastSpan, toId, toInt64, ZEROS } from './otlp-json-fast.js';

export type JsonPath = Array<string | number>;

export interface JsonProblem {
  path: JsonPath;
  message: string;
}

type Json = Record<string, unknown>;

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') return value.length > 40 ? 'a string' : JSON.stringify(value);
  return typeof value === 'object' ? 'an object' : String(value);
}

/**
 * Checks OTLP/JSON values and turns them, in place, into what the protobuf encoder takes: the JSON
 * objects themselves, with hex ids made bytes, decimal strings made 64-bit halves and enum names made
 * numbers. Building new objects for a million spans would cost more than the encoding. Problems are
 * collected, not thrown; each check takes the parent's path and the key, and the full path is built
 * only when there is a problem to report.
 */
class Checker {
  constructor(readonly problems: JsonProblem[]) {}

  fail(parent: JsonPath, key: string | number | undefined, message: string): false {
    this.problems.push({ path: key === undefined ? parent : [...parent, key], message });
    return false;
  }

  object(value: unknown, parent: JsonPath, key?: string | number): value is Json {
    return isObject(value) || this.fail(parent, key, `expected an object, not ${describe(value)}`);
  }

  /** Optional fields: absent or null is fine (the encoder skips both). */
  private absent(o: Json, key: string): boolean {
    const v = o[key];
    return v === undefined || v === null;
  }

  string(o: Json, parent: JsonPath, key: string): void {
    if (this.absent(o, key) || typeof o[key] === 'string') return;
    this.fail(parent, key, `expected a string, not ${describe(o[key])}`);
  }

  uint32(o: Json, parent: JsonPath, key: string): void {
    if (this.absent(o, key)) return;
    const v = o[key];
    if (typeof v === 'number' && Number.isInteger(v) && v >= 0 && v <= 0xffffffff) return;
    this.fail(parent, key, `expected a whole number from 0 to 4294967295, not ${describe(v)}`);
  }

  /** int64 / fixed64: a decimal string, or a number small enough to have survived JSON parsing. */
  int64(o: Json, parent: JsonPath, key: string, signed: boolean): void {
    if (this.absent(o, key)) return;
    const v = o[key];
    const converted = toInt64(v, signed);
    if (converted) {
      o[key] = converted;
      return;
    }
    if (typeof v === 'number' && Number.isInteger(v) && (signed || v >= 0)) {
      this.fail(parent, key, `${v} is too large for a JSON number (parsers round it): write it as a string`);
      return;
    }
    const what = signed ? 'a 64-bit integer' : 'an unsigned 64-bit integer';
    this.fail(parent, key, `expected ${what} as a decimal string, not ${describe(v)}`);
  }

  /** A trace id (16 bytes) or span id (8 bytes) in hex; all zeros is not a valid id. */
  id(o: Json, parent: JsonPath, key: string, bytes: number, optional = false): void {
    const v = o[key];
    if (v === undefined || v === null || (optional && v === '')) {
      if (v === '') o[key] = null; // nothing to encode (the encoder skips null)
      if (!optional) this.fail(parent, key, 'required');
      return;
    }
    const id = toId(v, bytes);
    if (id) o[key] = id;
    else if (typeof v === 'string' && v.length === bytes * 2 && ZEROS.test(v))
      this.fail(parent, key, 'an id of all zeros is not valid');
    else this.fail(parent, key, `expected ${bytes * 2} hex digits, not ${describe(v)}`);
  }

  enumValue(o: Json, parent: JsonPath, key: string, names: readonly string[], prefix: string): void {
    if (this.absent(o, key)) return;
    const v = o[key];
    if (typeof v === 'number' && Number.isInteger(v) && v >= 0 && v < names.length) return;
    if (typeof v === 'string' && v.startsWith(prefix)) {
      const index = names.indexOf(v.slice(prefix.length));
      if (index >= 0) {
        o[key] = index;
        return;
      }
    }
    const allowed = names.map((n, i) => `${i} (${prefix}${n})`).join(', ');
    this.fail(parent, key, `expected one of ${allowed}, not ${describe(v)}`);
  }

  /** An array field (absent or null is fine); each item checked by `item`. */
  list(
    o: Json,
    parent: JsonPath,
    key: string,
    item: (value: unknown, at: JsonPath, i: number) => void,
  ): void {
    if (this.absent(o, key)) return;
    const v = o[key];
    if (!Array.isArray(v)) {
      this.fail(parent, key, `expected an array, not ${describe(v)}`);
      return;
    }
    const at = [...parent, key];
    for (let i = 0; i < v.length; i++) item(v[i], at, i);
  }

  /**
   * An AnyValue at parent + trail (the trail's keys joined to the path only when there is a problem:
   * this runs for every attribute).
   */
  anyValue(v: unknown, parent: JsonPath, trail: ReadonlyArray<string | number>, depth: number): void {
    const path = () => [...parent, ...trail];
    if (!isObject(v)) {
      this.fail(path(), undefined, `expected an object, not ${describe(v)}`);
      return;
    }
    if (depth > 32) {
      this.fail(path(), undefined, 'values nested more than 32 deep');
      return;
    }
    let kind: string | undefined;
    for (const k in v) {
      if (!ANY_VALUE_KEYS.has(k) || v[k] === null) continue;
      if (kind) {
        this.fail(path(), undefined, `expected one value, not ${kind} and ${k}`);
        return;
      }
      kind = k;
    }
    if (kind === undefined) return;
    const x = v[kind];
    switch (kind) {
      case 'stringValue':
        if (typeof x !== 'string') this.fail(path(), kind, `expected a string, not ${describe(x)}`);
        return;
      case 'boolValue':
        if (typeof x !== 'boolean') this.fail(path(), kind, `expected true or false, not ${describe(x)}`);
        return;
      case 'intValue':
        this.int64(v, path(), kind, true);
        return;
      case 'doubleValue':
        if (typeof x === 'number') return;
        if (x === 'NaN' || x === 'Infinity' || x === '-Infinity') v[kind] = Number(x);
        else this.fail(path(), kind, `expected a number, not ${describe(x)}`);
        return;
      case 'bytesValue':
        // Base64 text is what the encoder takes for bytes.
        if (typeof x !== 'string' || !BASE64.test(x))
          this.fail(path(), kind, `expected base64 text, not ${describe(x)}`);
        return;
      case 'arrayValue': {
        if (!isObject(x)) {
          this.fail(path(), kind, `expected an object, not ${describe(x)}`);
          return;
        }
        const values = x.values;
        if (values === undefined || values === null) x.values = [];
        else if (!Array.isArray(values))
          this.fail([...path(), kind], 'values', `expected an array, not ${describe(values)}`);
        else {
          const at = [...path(), kind, 'values'];
          for (let i = 0; i < values.length; i++) this.anyValue(values[i], at, [i], depth + 1);
        }
        return;
      }
      default: {
        if (!isObject(x)) {
          this.fail(path(), kind, `expected an object, not ${describe(x)}`);
          return;
        }
        this.attributes(x, [...path(), kind], 'values', depth + 1);
        if (x.values === undefined || x.values === null) x.values = [];
      }
    }
  }

  attributes(o: Json, parent: JsonPath, key: string, depth = 0): void {
    const list = o[key];
    if (list === undefined || list === null) return;
    if (!Array.isArray(list)) {
      this.fail(parent, key, `expected an array, not ${describe(list)}`);
      return;
    }
    // The hottest loop of all: no closure, no path built unless something is wrong.
    for (let i = 0; i < list.length; i++) {
      const kv = list[i];
      if (!isObject(kv)) {
        this.fail([...parent, key], i, `expected {"key": …, "value": …}, not ${describe(kv)}`);
        continue;
      }
      if (typeof kv.key !== 'string')
        this.fail([...parent, key, i], 'key', `expected a string, not ${describe(kv.key)}`);
      const value = kv.value;
      if (value === undefined || value === null) continue;
      this.anyValue(value, parent, [key, i, 'value'], depth);
    }
  }
}

/** AnyValue's fields, in field-number order (1 to 7; span-transcoder.ts dispatches on the index). */
export const ANY_VALUE_FIELDS = [
  'stringValue',
  'boolValue',
  'intValue',
  'doubleValue',
  'arrayValue',
  'kvlistValue',
  'bytesValue',
] as const;
const ANY_VALUE_KEYS = new Set<string>(ANY_VALUE_FIELDS);

function checkEntityRef(c: Checker, item: unknown, at: JsonPath, i: number): void {
  if (!c.object(item, at, i)) return;
  const path = [...at, i];
  c.string(item, path, 'schemaUrl');
  c.string(item, path, 'type');
  for (const name of ['idKeys', 'descriptionKeys']) {
    c.list(item, path, name, (k, keysAt, j) => {
      if (typeof k !== 'string') c.fail(keysAt, j, `expected a string, not ${describe(k)}`);
    });
  }
}

/** A Resource, checked and made encodable in place. */
export function resourceFromJson(value: unknown, problems: JsonProblem[], path: JsonPath = []): PbResource {
  if (value === undefined || value === null) return {};
  const c = new Checker(problems);
  if (!c.object(value, path)) return {};
  c.attributes(value, path, 'attributes');
  c.uint32(value, path, 'droppedAttributesCount');
  c.list(value, path, 'entityRefs', (item, at, i) => checkEntityRef(c, item, at, i));
  return value as PbResource;
}

/** An InstrumentationScope, checked and made encodable in place. */
export function scopeFromJson(value: unknown, problems: JsonProblem[], path: JsonPath = []): PbScope {
  if (value === undefined || value === null) return {};
  const c = new Checker(problems);
  if (!c.object(value, path)) return {};
  c.string(value, path, 'name');
  c.string(value, path, 'version');
  c.attributes(value, path, 'attributes');
  c.uint32(value, path, 'droppedAttributesCount');
  return value as PbScope;
}

/** A schemaUrl (or any optional string field). */
export function stringFromJson(value: unknown, problems: JsonProblem[], path: JsonPath): string | undefined {
  if (value === undefined || value === null || typeof value === 'string') return value ?? undefined;
  problems.push({ path, message: `expected a string, not ${describe(value)}` });
  return undefined;
}

function checkEvent(c: Checker, item: unknown, at: JsonPath, i: number): void {
  if (!c.object(item, at, i)) return;
  const path = [...at, i];
  c.int64(item, path, 'timeUnixNano', false);
  c.string(item, path, 'name');
  c.attributes(item, path, 'attributes');
  c.uint32(item, path, 'droppedAttributesCount');
}

function checkLink(c: Checker, item: unknown, at: JsonPath, i: number): void {
  if (!c.object(item, at, i)) return;
  const path = [...at, i];
  c.id(item, path, 'traceId', 16);
  c.id(item, path, 'spanId', 8);
  c.string(item, path, 'traceState');
  c.attributes(item, path, 'attributes');
  c.uint32(item, path, 'droppedAttributesCount');
  c.uint32(item, path, 'flags');
}

/**
 * A span, checked and made encodable in place (the value itself is returned); undefined when it has
 * problems (they are in `problems`, with paths under `path`).
 */
export function spanFromJson(
  value: unknown,
  problems: JsonProblem[],
  path: JsonPath = [],
): PbSpan | undefined {
  if (fastSpan(value)) return value as PbSpan;
  const before = problems.length;
  const c = new Checker(problems);
  if (!c.object(value, path)) return undefined;
  const v = value;
  c.id(v, path, 'traceId', 16);
  c.id(v, path, 'spanId', 8);
  c.string(v, path, 'traceState');
  c.id(v, path, 'parentSpanId', 8, true);
  c.uint32(v, path, 'flags');
  if (typeof v.name !== 'string' || v.name === '') {
    c.fail(
      path,
      'name',
      v.name === undefined || v.name === ''
        ? 'required: a span needs a name'
        : `expected a string, not ${describe(v.name)}`,
    );
  }
  c.enumValue(v, path, 'kind', SPAN_KINDS, 'SPAN_KIND_');
  c.int64(v, path, 'startTimeUnixNano', false);
  c.int64(v, path, 'endTimeUnixNano', false);
  c.attributes(v, path, 'attributes');
  c.uint32(v, path, 'droppedAttributesCount');
  c.list(v, path, 'events', (item, at, i) => checkEvent(c, item, at, i));
  c.uint32(v, path, 'droppedEventsCount');
  c.list(v, path, 'links', (item, at, i) => checkLink(c, item, at, i));
  c.uint32(v, path, 'droppedLinksCount');
  if (v.status !== undefined && v.status !== null && c.object(v.status, path, 'status')) {
    const at = [...path, 'status'];
    c.string(v.status, at, 'message');
    c.enumValue(v.status, at, 'code', STATUS_CODES, 'STATUS_CODE_');
  }
  return problems.length > before ? undefined : (v as PbSpan);
}

// ---- protobuf → canonical OTLP/JSON ----

const hex = (bytes: Uint8Array | undefined) =>
  bytes?.length ? Buffer.from(bytes).toString('hex') : undefined;
const nonEmpty = <T>(list: T[] | undefined) => (list?.length ? list : undefined);
const nonZero = (n: number | undefined) => (n ? n : undefined);
const nonBlank = (s: string | undefined) => (s ? s : undefined);
const has = (o: object, key: string) => Object.hasOwn(o, key);

/** Drops the keys whose value is undefined, so that equal spans compare equal. */
function compact<T extends Json>(o: T): T {
  for (const key of Object.keys(o)) if (o[key] === undefined) delete o[key];
  return o;
}

export function anyValueToJson(v: PbAnyValue): Json {
  if (has(v, 'stringValue')) return { stringValue: v.stringValue };
  if (has(v, 'boolValue')) return { boolValue: v.boolValue };
  if (has(v, 'intValue')) return { intValue: int64String(v.intValue!, true) };
  if (has(v, 'doubleValue')) {
    const d = v.doubleValue!;
    return { doubleValue: Number.isFinite(d) ? d : String(d) };
  }
  if (has(v, 'bytesValue')) return { bytesValue: Buffer.from(v.bytesValue!).toString('base64') };
  if (has(v, 'arrayValue'))
    return { arrayValue: { values: (v.arrayValue!.values ?? []).map(anyValueToJson) } };
  if (has(v, 'kvlistValue'))
    return { kvlistValue: { values: attributesToJson(v.kvlistValue!.values) ?? [] } };
  return {};
}

export function attributesToJson(list: PbKeyValue[] | undefined): Json[] | undefined {
  return nonEmpty(list)?.map((kv) =>
    compact({ key: kv.key, value: kv.value ? anyValueToJson(kv.value) : undefined }),
  );
}

export function resourceToJson(r: PbResource | undefined): Json | undefined {
  if (!r) return undefined;
  return compact({
    attributes: attributesToJson(r.attributes),
    droppedAttributesCount: nonZero(r.droppedAttributesCount),
    entityRefs: nonEmpty(r.entityRefs)?.map((e) =>
      compact({
        schemaUrl: nonBlank(e.schemaUrl),
        type: nonBlank(e.type),
        idKeys: nonEmpty(e.idKeys),
        descriptionKeys: nonEmpty(e.descriptionKeys),
      }),
    ),
  });
}

export function scopeToJson(s: PbScope | undefined): Json | undefined {
  if (!s) return undefined;
  return compact({
    name: nonBlank(s.name),
    version: nonBlank(s.version),
    attributes: attributesToJson(s.attributes),
    droppedAttributesCount: nonZero(s.droppedAttributesCount),
  });
}

// Decoded messages hold null for fields that were not on the wire (the module was generated with
// null defaults): every reader below treats null as absent.
const time = (t: Int64 | number | null | undefined) => {
  if (t == null) return undefined;
  const text = int64String(t, false);
  return text === '0' ? undefined : text;
};

export function spanToJson(s: PbSpan): Json {
  return compact({
    traceId: hex(s.traceId),
    spanId: hex(s.spanId),
    traceState: nonBlank(s.traceState),
    parentSpanId: hex(s.parentSpanId),
    flags: nonZero(s.flags),
    name: nonBlank(s.name),
    kind: nonZero(s.kind),
    startTimeUnixNano: time(s.startTimeUnixNano),
    endTimeUnixNano: time(s.endTimeUnixNano),
    attributes: attributesToJson(s.attributes),
    droppedAttributesCount: nonZero(s.droppedAttributesCount),
    events: nonEmpty(s.events)?.map((e) =>
      compact({
        timeUnixNano: time(e.timeUnixNano),
        name: nonBlank(e.name),
        attributes: attributesToJson(e.attributes),
        droppedAttributesCount: nonZero(e.droppedAttributesCount),
      }),
    ),
    droppedEventsCount: nonZero(s.droppedEventsCount),
    links: nonEmpty(s.links)?.map((l) =>
      compact({
        traceId: hex(l.traceId),
        spanId: hex(l.spanId),
        traceState: nonBlank(l.traceState),
        attributes: attributesToJson(l.attributes),
        droppedAttributesCount: nonZero(l.droppedAttributesCount),
        flags: nonZero(l.flags),
      }),
    ),
    droppedLinksCount: nonZero(s.droppedLinksCount),
    status:
      s.status && (s.status.code || s.status.message)
        ? compact({ message: nonBlank(s.status.message), code: nonZero(s.status.code) })
        : undefined,
  });
}
