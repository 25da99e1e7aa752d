// The JSON Schema subset the emulator's structured output can answer (structured-output.ts): what a
// `response_format: {type: "json_schema"}` request's schema may use, checked before anything is
// generated, so that a reply is always a valid instance and a schema it cannot satisfy gets a 422
// naming the keyword instead of a reply that would not validate.
//
// Supported: `type` (one or a list), object `properties`/`required`/`additionalProperties`, array
// `items`/`prefixItems`/`minItems`/`maxItems`, string `minLength`/`maxLength`, number and integer
// `minimum`/`maximum`/`exclusiveMinimum`/`exclusiveMaximum`/`multipleOf` (a whole number), `enum`,
// `const`, `anyOf`, `oneOf`, `$ref` to `#`, `#/$defs/NAME` or `#/definitions/NAME`; annotations
// (`title`, `description`, `default`…) are ignored. Refused: `pattern`, `format`, `allOf`, `not` and the
// other constraints a generator cannot honour without a solver, bounds that leave nothing, references
// that resolve nowhere, recursion with no finite instance. The schema is untrusted: its depth, size
// and smallest instance are bounded, and its names (`__proto__`, `constructor`) are only ever looked
// up as own properties.

import { isObject } from '../../lib/json.js';
import { hasOwnKey } from '../../lib/own.js';

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type Schema = boolean | Record<string, unknown>;
export type Loc = Array<string | number>;

export interface SchemaProblem {
  loc: Loc;
  msg: string;
}

/** OpenAI's limits: nesting depth and properties in all; the rest keep a reply's work small. */
export const MAX_DEPTH = 32;
export const MAX_PROPERTIES = 5000;
const MAX_NODES = 10_000;
const MAX_LENGTH = 10_000;
const MAX_ITEMS = 1000;
/** The smallest instance's size (values in it, roughly): beyond, the schema is refused. */
const MAX_SMALLEST = 2000;

export const TYPES = ['string', 'number', 'integer', 'boolean', 'null', 'object', 'array'];
const ANNOTATIONS = new Set([
  'title',
  'description',
  'default',
  'examples',
  '$comment',
  '$schema',
  'deprecated',
  'readOnly',
  'writeOnly',
  '$defs',
  'definitions',
  'contentMediaType',
  'contentEncoding',
]);
const REFUSED = new Set([
  'pattern',
  'format',
  'allOf',
  'not',
  'if',
  'then',
  'else',
  'patternProperties',
  'propertyNames',
  'minProperties',
  'maxProperties',
  'uniqueItems',
  'contains',
  'minContains',
  'maxContains',
  'dependentRequired',
  'dependentSchemas',
  'dependencies',
  'unevaluatedProperties',
  'unevaluatedItems',
  '$dynamicRef',
  '$recursiveRef',
  '$anchor',
  '$dynamicAnchor',
  '$recursiveAnchor',
  'contentSchema',
]);
const NUMERIC = ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum'];

/** A keyword's value: the node's own property only (a schema's names are untrusted). */
export function own(node: unknown, key: string): unknown {
  return isObject(node) && hasOwnKey(node, key) ? node[key] : undefined;
}

const isSchema = (value: unknown): value is Schema => typeof value === 'boolean' || isObject(value);
const wholeNumber = (value: unknown): value is number =>
  typeof value === 'number' && Number.isInteger(value) && value >= 0;

/** What the generator needs of a checked schema. */
export interface Analysed {
  root: Schema;
  /** The node holding a `$ref` → the schema it names. */
  refs: Map<object, Schema>;
  /** A node with `enum` or `const` → its values that satisfy the node's other keywords. */
  choices: Map<object, Json[]>;
  /** A referenced schema → the size of its smallest instance (Infinity: none). */
  targets: Map<Schema, number>;
  /** Memo of `smallest`. */
  sizes: Map<Schema, number>;
}

/** The schema `ref` names in `root`: `#`, `#/$defs/NAME` or `#/definitions/NAME` (a JSON pointer). */
function refTarget(ref: string, root: Schema): Schema | undefined {
  if (ref === '#') return root;
  const m = /^#\/(\$defs|definitions)\/([^/]+)$/.exec(ref);
  if (!m) return undefined;
  let name: string;
  try {
    name = decodeURIComponent(m[2]!).replace(/~1/g, '/').replace(/~0/g, '~');
  } catch {
    return undefined;
  }
  const target = own(own(root, m[1]!), name);
  return isSchema(target) ? target : undefined;
}

interface Walk {
  root: Schema;
  problems: SchemaProblem[];
  nodes: number;
  properties: number;
  refs: Map<object, Schema>;
  /** Nodes with `enum` or `const`, with where they are. */
  valued: Array<{ node: Record<string, unknown>; loc: Loc }>;
}

/** The type names a node allows (undefined: no `type`). */
export function typesOf(node: Record<string, unknown>): string[] | undefined {
  const type = own(node, 'type');
  if (type === undefined) return undefined;
  return Array.isArray(type) ? (type as string[]) : [type as string];
}

function checkType(node: Record<string, unknown>, loc: Loc, w: Walk): void {
  const type = own(node, 'type');
  if (type === undefined) return;
  const list = Array.isArray(type) ? type : [type];
  const bad =
    list.length === 0 ||
    list.some((t) => typeof t !== 'string' || !TYPES.includes(t)) ||
    new Set(list).size !== list.length;
  if (bad)
    w.problems.push({
      loc: [...loc, 'type'],
      msg: `type must be one of ${TYPES.join(', ')}, or a list of them`,
    });
}

/** A subschema, walked; `false` and non-objects are refused (nothing could be generated from them). */
function walk(node: unknown, loc: Loc, depth: number, w: Walk): void {
  if (node === true) return;
  if (!isObject(node)) {
    w.problems.push({
      loc,
      msg: node === false ? 'a false schema has no instance' : 'a schema must be an object',
    });
    return;
  }
  if (depth > MAX_DEPTH) {
    w.problems.push({ loc, msg: `the schema is nested deeper than ${MAX_DEPTH} levels` });
    return;
  }
  if (++w.nodes === MAX_NODES + 1)
    w.problems.push({ loc, msg: `the schema has more than ${MAX_NODES} subschemas` });
  if (w.nodes > MAX_NODES) return;
  const refused = Object.keys(node).filter((k) => REFUSED.has(k) || (k === '$id' && depth > 0));
  for (const key of refused)
    w.problems.push({
      loc: [...loc, key],
      msg: `${key} is not supported by the emulator's structured output`,
    });
  if (refused.length > 0) return;
  if (hasOwnKey(node, '$ref')) {
    walkRef(node, loc, w);
    return;
  }
  if (hasOwnKey(node, 'anyOf') || hasOwnKey(node, 'oneOf')) {
    walkBranches(node, loc, depth, w);
    return;
  }
  checkType(node, loc, w);
  if (hasOwnKey(node, 'enum') || hasOwnKey(node, 'const')) {
    const values = own(node, 'enum');
    if (values !== undefined && (!Array.isArray(values) || values.length === 0))
      w.problems.push({ loc: [...loc, 'enum'], msg: 'enum must be a non-empty list' });
    else w.valued.push({ node, loc });
  }
  checkString(node, loc, w);
  checkNumber(node, loc, w);
  walkObject(node, loc, depth, w);
  walkArray(node, loc, depth, w);
}

/** Keywords beside `$ref`, `anyOf` or `oneOf` other than annotations (which would apply too). */
function siblings(node: Record<string, unknown>, allowed: string[]): string[] {
  return Object.keys(node).filter((k) => !allowed.includes(k) && !ANNOTATIONS.has(k) && k !== '$id');
}

function walkRef(node: Record<string, unknown>, loc: Loc, w: Walk): void {
  const ref = own(node, '$ref');
  const target = typeof ref === 'string' ? refTarget(ref, w.root) : undefined;
  if (target === undefined) {
    const msg = `$ref must name a schema of this one's $defs or definitions (#/$defs/NAME, #/definitions/NAME)`;
    w.problems.push({ loc: [...loc, '$ref'], msg });
  } else w.refs.set(node, target);
  for (const key of siblings(node, ['$ref']))
    w.problems.push({ loc: [...loc, key], msg: `${key} beside $ref is not supported` });
}

function walkBranches(node: Record<string, unknown>, loc: Loc, depth: number, w: Walk): void {
  const keys = ['anyOf', 'oneOf'].filter((k) => hasOwnKey(node, k));
  for (const key of keys) {
    const branches = own(node, key);
    if (!Array.isArray(branches) || branches.length === 0)
      w.problems.push({ loc: [...loc, key], msg: `${key} must be a non-empty list of schemas` });
    else
      branches.forEach((b, i) => {
        walk(b, [...loc, key, i], depth + 1, w);
      });
  }
  if (keys.length > 1)
    w.problems.push({ loc: [...loc, 'oneOf'], msg: 'anyOf and oneOf together are not supported' });
  for (const key of siblings(node, keys))
    w.problems.push({ loc: [...loc, key], msg: `${key} beside ${keys[0]} is not supported` });
}

function checkString(node: Record<string, unknown>, loc: Loc, w: Walk): void {
  for (const key of ['minLength', 'maxLength']) {
    const value = own(node, key);
    if (value !== undefined && !wholeNumber(value))
      w.problems.push({ loc: [...loc, key], msg: `${key} must be a non-negative integer` });
  }
  const min = own(node, 'minLength');
  const max = own(node, 'maxLength');
  if (wholeNumber(min) && min > MAX_LENGTH)
    w.problems.push({ loc: [...loc, 'minLength'], msg: `minLength above ${MAX_LENGTH} is not supported` });
  if (wholeNumber(min) && wholeNumber(max) && min > max)
    w.problems.push({ loc: [...loc, 'minLength'], msg: 'minLength is greater than maxLength' });
}

/** The numeric types a node may be generated as (a node without a type but with bounds: a number). */
function numericTypes(node: Record<string, unknown>): string[] {
  const types = typesOf(node);
  if (types) return types.filter((t) => t === 'number' || t === 'integer');
  return [...NUMERIC, 'multipleOf'].some((k) => hasOwnKey(node, k)) ? ['number'] : [];
}

function checkNumber(node: Record<string, unknown>, loc: Loc, w: Walk): void {
  let ok = true;
  for (const key of NUMERIC) {
    const value = own(node, key);
    if (value !== undefined && (typeof value !== 'number' || !Number.isFinite(value))) {
      w.problems.push({ loc: [...loc, key], msg: `${key} must be a number` });
      ok = false;
    }
  }
  const multiple = own(node, 'multipleOf');
  if (multiple !== undefined && (!wholeNumber(multiple) || multiple === 0)) {
    const msg = 'multipleOf must be a positive integer (the emulator generates whole multiples)';
    w.problems.push({ loc: [...loc, 'multipleOf'], msg });
    ok = false;
  }
  if (!ok) return;
  const empty = numericTypes(node).filter(
    (t) => !numberRange(node, t === 'integer' || multiple !== undefined),
  );
  if (empty.length > 0 && empty.length === numericTypes(node).length) {
    const what =
      multiple !== undefined ? `multiple of ${multiple}` : empty.includes('integer') ? 'integer' : 'number';
    const key = NUMERIC.find((k) => hasOwnKey(node, k)) ?? 'multipleOf';
    w.problems.push({ loc: [...loc, key], msg: `no ${what} satisfies the bounds` });
  }
}

function walkObject(node: Record<string, unknown>, loc: Loc, depth: number, w: Walk): void {
  const properties = own(node, 'properties');
  if (properties !== undefined && !isObject(properties))
    w.problems.push({ loc: [...loc, 'properties'], msg: 'properties must be an object' });
  const names = isObject(properties) ? Object.keys(properties) : [];
  w.properties += names.length;
  if (w.properties > MAX_PROPERTIES && w.properties - names.length <= MAX_PROPERTIES)
    w.problems.push({
      loc: [...loc, 'properties'],
      msg: `the schema has more than ${MAX_PROPERTIES} properties`,
    });
  if (w.properties > MAX_PROPERTIES) return;
  for (const name of names) walk(own(properties, name), [...loc, 'properties', name], depth + 1, w);
  const extra = own(node, 'additionalProperties');
  if (extra !== undefined && !isSchema(extra))
    w.problems.push({ loc: [...loc, 'additionalProperties'], msg: 'additionalProperties must be a schema' });
  else if (isObject(extra)) walk(extra, [...loc, 'additionalProperties'], depth + 1, w);
  const required = own(node, 'required');
  if (required === undefined) return;
  if (
    !Array.isArray(required) ||
    required.some((r) => typeof r !== 'string') ||
    new Set(required).size !== required.length
  ) {
    w.problems.push({ loc: [...loc, 'required'], msg: 'required must be a list of distinct names' });
    return;
  }
  const outside = required.filter((name) => !names.includes(name));
  if (outside.length > 0 && extra === false) {
    const i = required.indexOf(outside[0]);
    const msg = `required property ${outside[0]} is not in properties, and additionalProperties is false`;
    w.problems.push({ loc: [...loc, 'required', i], msg });
  }
}

function walkArray(node: Record<string, unknown>, loc: Loc, depth: number, w: Walk): void {
  for (const key of ['minItems', 'maxItems']) {
    const value = own(node, key);
    if (value !== undefined && !wholeNumber(value))
      w.problems.push({ loc: [...loc, key], msg: `${key} must be a non-negative integer` });
  }
  const min = own(node, 'minItems');
  const max = own(node, 'maxItems');
  if (wholeNumber(min) && min > MAX_ITEMS)
    w.problems.push({ loc: [...loc, 'minItems'], msg: `minItems above ${MAX_ITEMS} is not supported` });
  if (wholeNumber(min) && wholeNumber(max) && min > max)
    w.problems.push({ loc: [...loc, 'minItems'], msg: 'minItems is greater than maxItems' });
  const prefix = own(node, 'prefixItems');
  if (prefix !== undefined && !Array.isArray(prefix))
    w.problems.push({ loc: [...loc, 'prefixItems'], msg: 'prefixItems must be a list of schemas' });
  if (Array.isArray(prefix))
    prefix.forEach((p, i) => {
      walk(p, [...loc, 'prefixItems', i], depth + 1, w);
    });
  const items = own(node, 'items');
  if (Array.isArray(items))
    w.problems.push({ loc: [...loc, 'items'], msg: 'items as a list is not supported: use prefixItems' });
  else if (items === false) {
    if (wholeNumber(min) && min > (Array.isArray(prefix) ? prefix.length : 0))
      w.problems.push({
        loc: [...loc, 'minItems'],
        msg: 'minItems asks for more items than items: false allows',
      });
  } else if (items !== undefined) walk(items, [...loc, 'items'], depth + 1, w);
}

export interface IntRange {
  kLo: number;
  kHi: number;
  step: number;
}
export interface RealRange {
  lo: number;
  hi: number;
  loEx: boolean;
  hiEx: boolean;
}

/** The node's bounds, the exclusive ones winning over equal inclusive ones. */
export function realRange(node: Record<string, unknown>): RealRange {
  const r: RealRange = { lo: -Infinity, hi: Infinity, loEx: false, hiEx: false };
  const [min, max, xmin, xmax] = NUMERIC.map((k) => own(node, k) as number | undefined);
  if (min !== undefined) r.lo = min;
  if (xmin !== undefined && xmin >= r.lo) Object.assign(r, { lo: xmin, loEx: true });
  if (max !== undefined) r.hi = max;
  if (xmax !== undefined && xmax <= r.hi) Object.assign(r, { hi: xmax, hiEx: true });
  return r;
}

/** Integers k with k·step within the bounds and within the safe integers. */
export function intRange(node: Record<string, unknown>): IntRange {
  const step = (own(node, 'multipleOf') as number | undefined) ?? 1;
  const r = realRange(node);
  const lo = Math.max(r.loEx ? Math.floor(r.lo) + 1 : Math.ceil(r.lo), -Number.MAX_SAFE_INTEGER);
  const hi = Math.min(r.hiEx ? Math.ceil(r.hi) - 1 : Math.floor(r.hi), Number.MAX_SAFE_INTEGER);
  const kLo = Math.ceil(lo / step);
  const kHi = Math.floor(hi / step);
  // Past 2^53 the arithmetic above rounds: keep only multiples that are really inside.
  return { kLo: kLo * step < r.lo ? kLo + 1 : kLo, kHi: kHi * step > r.hi ? kHi - 1 : kHi, step };
}

/** Whether `x` is within the bounds. */
export const inside = (r: RealRange, x: number): boolean =>
  (r.loEx ? x > r.lo : x >= r.lo) && (r.hiEx ? x < r.hi : x <= r.hi);

/** Whether any value of the kind (integer or number) satisfies the node's bounds. */
function numberRange(node: Record<string, unknown>, integer: boolean): boolean {
  if (integer) {
    const { kLo, kHi } = intRange(node);
    return kLo <= kHi;
  }
  const r = realRange(node);
  return [r.lo / 2 + r.hi / 2, r.lo, r.hi, r.lo + 1, r.hi - 1, 0].some(
    (x) => Number.isFinite(x) && inside(r, x),
  );
}

/**
 * The problems of a schema (an empty list: it can be answered) and, when there are none, what the
 * generator needs. Locations are relative to the schema.
 */
export function analyse(root: unknown): { problems: SchemaProblem[]; analysed?: Analysed } {
  if (!isObject(root)) return { problems: [{ loc: [], msg: 'the schema must be a JSON object' }] };
  const w: Walk = { root, problems: [], nodes: 0, properties: 0, refs: new Map(), valued: [] };
  walk(root, [], 0, w);
  for (const key of ['$defs', 'definitions']) {
    const defs = own(root, key);
    if (defs === undefined) continue;
    if (!isObject(defs)) w.problems.push({ loc: [key], msg: `${key} must be an object of schemas` });
    else for (const name of Object.keys(defs)) walk(defs[name], [key, name], 1, w);
  }
  if (w.problems.length > 0) return { problems: w.problems };
  const refs = w.refs;
  const choices = new Map<object, Json[]>();
  for (const { node, loc } of w.valued) {
    const values = valuesOf(node, refs);
    if (values.length === 0)
      w.problems.push({
        loc: [...loc, hasOwnKey(node, 'enum') ? 'enum' : 'const'],
        msg: "no value of enum or const satisfies the schema's other keywords",
      });
    choices.set(node, values);
  }
  if (w.problems.length > 0) return { problems: w.problems };
  const analysed: Analysed = {
    root,
    refs,
    choices,
    targets: smallestOfTargets(refs, choices),
    sizes: new Map(),
  };
  const size = smallest(root, analysed);
  if (size === Infinity)
    return { problems: [{ loc: [], msg: 'the schema has no finite instance (recursion with no way out)' }] };
  if (size > MAX_SMALLEST)
    return { problems: [{ loc: [], msg: 'the smallest instance of the schema is too large' }] };
  return { problems: [], analysed };
}

/** The values of `enum`/`const` that satisfy the node's other keywords. */
function valuesOf(node: Record<string, unknown>, refs: Map<object, Schema>): Json[] {
  const rest: Record<string, unknown> = { ...node };
  delete rest.enum;
  delete rest.const;
  const listed = hasOwnKey(node, 'enum') ? (own(node, 'enum') as Json[]) : undefined;
  if (!hasOwnKey(node, 'const')) return listed!.filter((v) => matches(rest, v, refs));
  const fixed = own(node, 'const') as Json;
  const fits = matches(rest, fixed, refs) && (listed === undefined || listed.some((l) => sameJson(l, fixed)));
  return fits ? [fixed] : [];
}

/**
 * The smallest instance's size of every referenced schema: a fixed point from Infinity down (a
 * schema only reachable through itself stays Infinity). Sizes only fall from one round to the next.
 */
function smallestOfTargets(refs: Map<object, Schema>, choices: Map<object, Json[]>): Map<Schema, number> {
  const targets = new Map<Schema, number>();
  for (const target of refs.values()) targets.set(target, Infinity);
  const a: Analysed = { root: true, refs, choices, targets, sizes: new Map() };
  // One round settles at least one more schema; each round's sizes are computed afresh.
  for (let round = 0; round <= Math.min(targets.size, 500); round++) {
    let changed = false;
    a.sizes = new Map();
    for (const target of targets.keys()) {
      const size = smallest(target, a);
      if (size < targets.get(target)!) {
        targets.set(target, size);
        changed = true;
      }
    }
    if (!changed) break;
  }
  return targets;
}

/**
 * The size of the node's smallest instance (Infinity: none), one more than any of its parts' — a
 * reference's or a branch's too — so that always taking the smallest part ends.
 */
export function smallest(node: Schema, a: Analysed): number {
  if (typeof node === 'boolean') return node ? 1 : Infinity;
  const known = a.sizes.get(node);
  if (known !== undefined) return known;
  let size: number;
  const target = a.refs.get(node);
  const branches = (own(node, 'anyOf') ?? own(node, 'oneOf')) as Schema[] | undefined;
  if (target !== undefined) size = 1 + (a.targets.get(target) ?? Infinity);
  else if (branches) size = 1 + Math.min(...branches.map((b) => smallest(b, a)));
  else if (a.choices.has(node)) size = 1;
  else size = Math.min(...kindsOf(node).map((kind) => smallestAs(kind, node, a)));
  a.sizes.set(node, size);
  return size;
}

/** The kinds a typed node may be generated as: its types, or what its keywords imply. */
export function kindsOf(node: Record<string, unknown>): string[] {
  const types = typesOf(node);
  if (types) return types;
  const has = (keys: string[]) => keys.some((k) => hasOwnKey(node, k));
  if (has(['properties', 'required', 'additionalProperties'])) return ['object'];
  if (has(['items', 'prefixItems', 'minItems', 'maxItems'])) return ['array'];
  if (has(['minLength', 'maxLength'])) return ['string'];
  if (has(['multipleOf'])) return ['integer'];
  if (has(NUMERIC)) return ['number'];
  return ['string'];
}

export function smallestAs(kind: string, node: Record<string, unknown>, a: Analysed): number {
  if (kind === 'object') {
    const properties = own(node, 'properties');
    const extra = own(node, 'additionalProperties');
    const required = (own(node, 'required') as string[] | undefined) ?? [];
    return (
      1 +
      required.reduce((sum, name) => {
        const schema = own(properties, name) ?? (isObject(extra) ? extra : true);
        return sum + smallest(schema as Schema, a);
      }, 0)
    );
  }
  if (kind === 'array') {
    const min = (own(node, 'minItems') as number | undefined) ?? 0;
    let size = 1;
    for (let i = 0; i < min; i++) size += smallest(itemSchema(node, i), a);
    return size;
  }
  if (kind === 'string') return 1 + Math.floor(((own(node, 'minLength') as number | undefined) ?? 0) / 16);
  if (kind === 'integer' || kind === 'number')
    return numberRange(node, kind === 'integer' || hasOwnKey(node, 'multipleOf')) ? 1 : Infinity;
  return 1;
}

/** The schema of an array's item `i` (`false`: no such item). */
export function itemSchema(node: Record<string, unknown>, i: number): Schema {
  const prefix = own(node, 'prefixItems');
  if (Array.isArray(prefix) && i < prefix.length) return prefix[i] as Schema;
  const items = own(node, 'items');
  return items === undefined ? true : (items as Schema);
}

/** Equality of JSON values (object keys in any order). */
export function sameJson(x: unknown, y: unknown): boolean {
  if (x === y) return true;
  if (Array.isArray(x) || Array.isArray(y)) {
    return (
      Array.isArray(x) && Array.isArray(y) && x.length === y.length && x.every((v, i) => sameJson(v, y[i]))
    );
  }
  if (!isObject(x) || !isObject(y)) return false;
  const keys = Object.keys(x);
  return keys.length === Object.keys(y).length && keys.every((k) => hasOwnKey(y, k) && sameJson(x[k], y[k]));
}

function typeMatches(type: string, value: unknown): boolean {
  if (type === 'integer') return typeof value === 'number' && Number.isInteger(value);
  if (type === 'null') return value === null;
  if (type === 'object') return isObject(value);
  if (type === 'array') return Array.isArray(value);
  return typeof value === type;
}

/** Steps `matches` may take, shared by one reply's checks: schemas can overlap exponentially deep. */
export interface WorkBudget {
  left: number;
}

/** Thrown by `matches` when its WorkBudget is spent: the caller decides what that means. */
export const OUT_OF_WORK = new Error('the schema check ran out of its work budget');

/**
 * Whether `value` is an instance of `node`, for the supported subset (a checked schema): what picks
 * `enum` values that fit the rest of a node and keeps a `oneOf` instance to one branch.
 */
export function matches(
  node: Schema,
  value: unknown,
  refs: Map<object, Schema>,
  depth = 0,
  work?: WorkBudget,
): boolean {
  if (work && --work.left < 0) throw OUT_OF_WORK;
  if (typeof node === 'boolean') return node;
  if (depth > 4 * MAX_DEPTH) return false;
  const target = refs.get(node);
  if (target !== undefined) return matches(target, value, refs, depth + 1, work);
  const any = own(node, 'anyOf') as Schema[] | undefined;
  if (any) return any.some((b) => matches(b, value, refs, depth + 1, work));
  const one = own(node, 'oneOf') as Schema[] | undefined;
  if (one) return one.filter((b) => matches(b, value, refs, depth + 1, work)).length === 1;
  if (hasOwnKey(node, 'const') && !sameJson(own(node, 'const'), value)) return false;
  const listed = own(node, 'enum');
  if (Array.isArray(listed) && !listed.some((l) => sameJson(l, value))) return false;
  const types = typesOf(node);
  if (types && !types.some((t) => typeMatches(t, value))) return false;
  if (typeof value === 'string') return stringMatches(node, value);
  if (typeof value === 'number') return numberMatches(node, value);
  if (Array.isArray(value)) return arrayMatches(node, value, refs, depth, work);
  if (isObject(value)) return objectMatches(node, value, refs, depth, work);
  return true;
}

function stringMatches(node: Record<string, unknown>, value: string): boolean {
  const length = [...value].length;
  const min = own(node, 'minLength') as number | undefined;
  const max = own(node, 'maxLength') as number | undefined;
  return (min === undefined || length >= min) && (max === undefined || length <= max);
}

function numberMatches(node: Record<string, unknown>, value: number): boolean {
  const multiple = own(node, 'multipleOf') as number | undefined;
  return inside(realRange(node), value) && (multiple === undefined || value % multiple === 0);
}

function arrayMatches(
  node: Record<string, unknown>,
  value: unknown[],
  refs: Map<object, Schema>,
  depth: number,
  work: WorkBudget | undefined,
) {
  const min = own(node, 'minItems') as number | undefined;
  const max = own(node, 'maxItems') as number | undefined;
  if ((min !== undefined && value.length < min) || (max !== undefined && value.length > max)) return false;
  return value.every((v, i) => matches(itemSchema(node, i), v, refs, depth + 1, work));
}

function objectMatches(
  node: Record<string, unknown>,
  value: Record<string, unknown>,
  refs: Map<object, Schema>,
  depth: number,
  work: WorkBudget | undefined,
): boolean {
  const properties = own(node, 'properties');
  const extra = own(node, 'additionalProperties') as Schema | undefined;
  const required = (own(node, 'required') as string[] | undefined) ?? [];
  if (!required.every((name) => hasOwnKey(value, name))) return false;
  return Object.keys(value).every((key) => {
    const schema =
      isObject(properties) && hasOwnKey(properties, key) ? (properties[key] as Schema) : (extra ?? true);
    return matches(schema, value[key], refs, depth + 1, work);
  });
}
