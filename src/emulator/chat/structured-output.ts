// Structured output, as OpenAI-compatible servers (vLLM's guided decoding, OpenAI's own) give it: with
// `response_format: {type: "json_schema", json_schema: {name, schema}}` a reply's content is the JSON
// text of a valid instance of the schema, and with `{type: "json_object"}` a JSON object. LLM judges
// (a score in [0, 1] with an explanation per trajectory) and tool-like agents parse those replies, so
// the emulator has to answer them with something they can parse and check, on both APIs.
//
// The instance is generated from the schema with the chat generation's seeded random (the same
// request and seed, the same text; another seed, maybe another instance): required properties always,
// optional ones by chance, one branch of an anyOf/oneOf, words for strings, numbers in [0, 1] where the
// bounds allow. What subset of JSON Schema is supported, and refused with a 422 naming the keyword,
// is json-schema-subset.ts's. Recursion ends: past a depth, or once a reply has grown past a budget,
// every choice takes the smallest instance (only the required, the fewest items, the smallest branch).

import { isObject } from '../../lib/json.js';
import { seededRandom, seedFrom } from '../../lib/seeded-random.js';
import type { ValidationItem } from '../exchange.js';
import { WORDS } from './generate.js';
import {
  type Analysed,
  analyse,
  inside,
  intRange,
  itemSchema,
  type Json,
  kindsOf,
  matches,
  OUT_OF_WORK,
  own,
  realRange,
  type Schema,
  type SchemaProblem,
  smallest,
  smallestAs,
  type WorkBudget,
} from './json-schema-subset.js';

/** OpenAI's rule for `json_schema.name`. */
const NAME = /^[a-zA-Z0-9_-]{1,64}$/;
/** Below this many schema steps a reply varies; at and past it, every choice is the smallest. */
const VARIED_DEPTH = 12;
/** Values a reply has before every further choice is the smallest. */
const BUDGET = 400;
/** Steps of `matches` one reply may take (a few milliseconds). */
const MATCH_WORK = 20_000;

/** A request's schema is checked when the request is, then generated from: analysed once. */
const analyses = new WeakMap<object, { problems: SchemaProblem[]; analysed?: Analysed }>();

function analysisOf(spec: Record<string, unknown>) {
  let found = analyses.get(spec);
  if (!found) {
    found = analyse(own(spec, 'schema'));
    analyses.set(spec, found);
  }
  return found;
}

/**
 * What is wrong with a `json_schema` response format, FastAPI-style with locations under the body:
 * [] for any other format (whether its type is known is request.ts's to say).
 */
export function responseFormatProblems(format: unknown): ValidationItem[] {
  if (!isObject(format) || own(format, 'type') !== 'json_schema') return [];
  const at = ['body', 'response_format', 'json_schema'];
  const spec = own(format, 'json_schema');
  if (spec === undefined) return [{ type: 'missing', loc: at, msg: 'Field required' }];
  if (!isObject(spec)) return [{ type: 'dict_type', loc: at, msg: 'Input should be a valid dictionary' }];
  const items: ValidationItem[] = [];
  const name = own(spec, 'name');
  if (name === undefined) items.push({ type: 'missing', loc: [...at, 'name'], msg: 'Field required' });
  else if (typeof name !== 'string' || !NAME.test(name))
    items.push({
      type: 'string_pattern_mismatch',
      loc: [...at, 'name'],
      msg: `String should match pattern '${NAME.source}'`,
    });
  const strict = own(spec, 'strict');
  if (strict !== undefined && strict !== null && typeof strict !== 'boolean')
    items.push({ type: 'bool_type', loc: [...at, 'strict'], msg: 'Input should be a valid boolean' });
  const description = own(spec, 'description');
  if (description !== undefined && typeof description !== 'string')
    items.push({ type: 'string_type', loc: [...at, 'description'], msg: 'Input should be a valid string' });
  if (own(spec, 'schema') === undefined)
    items.push({ type: 'missing', loc: [...at, 'schema'], msg: 'Field required' });
  else
    for (const p of analysisOf(spec).problems)
      items.push({ type: 'unsupported_parameter', loc: [...at, 'schema', ...p.loc], msg: p.msg });
  return items;
}

export type StructuredFormat = { kind: 'json_object' } | { kind: 'json_schema'; analysed: Analysed };

/** The structured format a request asks for (one that passed `responseFormatProblems`), if any. */
export function structuredFormat(format: unknown): StructuredFormat | undefined {
  if (!isObject(format)) return undefined;
  if (own(format, 'type') === 'json_object') return { kind: 'json_object' };
  const spec = own(format, 'json_schema');
  if (own(format, 'type') !== 'json_schema' || !isObject(spec)) return undefined;
  const { analysed } = analysisOf(spec);
  return analysed ? { kind: 'json_schema', analysed } : undefined;
}

/** The reply's text, as tokens: words, runs of punctuation (`{"`, `":"`), each with its spaces before. */
export function structuredTokens(format: StructuredFormat, seedText: string): string[] {
  const random = seededRandom(seedFrom(`structured:${seedText}`));
  const g: Gen = {
    random,
    budget: BUDGET,
    work: { left: MATCH_WORK },
    a: format.kind === 'json_schema' ? format.analysed : undefined,
  };
  const instance = g.a ? value(g.a.root, g, 0) : anyObject(g);
  const text = JSON.stringify(instance);
  return text.match(/\s*(?:[\p{L}\p{N}_]+|[^\s\p{L}\p{N}_]+)|\s+$/gu) ?? [];
}

interface Gen {
  random: () => number;
  /** Values still to vary before every choice is the smallest. */
  budget: number;
  /** Steps left for oneOf's checks that an instance is in one branch only. */
  work: WorkBudget;
  a: Analysed | undefined;
}

const word = (g: Gen) => WORDS[Math.floor(g.random() * WORDS.length)]!;

/** One of `options`: at random among those with an instance, or (`least`) the one with the smallest. */
function choose<T>(options: T[], size: (option: T) => number, g: Gen, least: boolean): T {
  const finite = options.filter((o) => size(o) < Infinity);
  if (!least) return finite[Math.floor(g.random() * finite.length)]!;
  return finite.reduce((best, o) => (size(o) < size(best) ? o : best));
}

/** An instance of `node` (a checked schema with an instance). */
function value(node: Schema, g: Gen, depth: number): Json {
  const a = g.a!;
  const least = depth >= VARIED_DEPTH || g.budget <= 0;
  g.budget--;
  if (typeof node === 'boolean') return phrase(g, least, 0, Infinity);
  const target = a.refs.get(node);
  if (target !== undefined) return value(target, g, depth + 1);
  const any = own(node, 'anyOf') as Schema[] | undefined;
  if (any)
    return value(
      choose(any, (b) => smallest(b, a), g, least),
      g,
      depth + 1,
    );
  const one = own(node, 'oneOf') as Schema[] | undefined;
  if (one) return oneOfValue(one, g, depth, least);
  const choices = a.choices.get(node);
  if (choices) return choices[Math.floor(g.random() * choices.length)]!;
  const kind = choose(kindsOf(node), (k) => smallestAs(k, node, a), g, least);
  if (kind === 'object') return objectValue(node, g, depth, least);
  if (kind === 'array') return arrayValue(node, g, depth, least);
  if (kind === 'string') {
    const min = (own(node, 'minLength') as number | undefined) ?? 0;
    return phrase(g, least, min, (own(node, 'maxLength') as number | undefined) ?? Infinity);
  }
  if (kind === 'integer' || (kind === 'number' && own(node, 'multipleOf') !== undefined))
    return integerValue(node, g);
  if (kind === 'number') return numberValue(node, g);
  if (kind === 'boolean') return g.random() < 0.5;
  return null;
}

/**
 * An instance of one branch that no other branch matches (oneOf's "exactly one"), the branches tried
 * from a random one on (or the smallest first), a few rounds (a number branch may draw a whole number
 * that an integer branch matches too); should none be alone, the first instance drawn. The search is
 * bounded: branches that overlap through $refs, level under level, would take exponential time (a
 * 2 KB schema could hold the emulator for hours), so once the reply's values or checks are spent the
 * smallest branch's instance is taken as it is.
 */
function oneOfValue(branches: Schema[], g: Gen, depth: number, least: boolean): Json {
  const a = g.a!;
  const finite = branches.filter((b) => smallest(b, a) < Infinity);
  const bySize = [...finite].sort((x, y) => smallest(x, a) - smallest(y, a));
  if (g.budget <= 0 || g.work.left <= 0) return value(bySize[0]!, g, depth + 1);
  let first: Json | undefined;
  for (let round = 0; round < 4; round++) {
    const start = least ? 0 : Math.floor(g.random() * finite.length);
    const order = least ? bySize : [...finite.slice(start), ...finite.slice(0, start)];
    for (const branch of order) {
      const candidate = value(branch, g, depth + 1);
      first ??= candidate;
      if (alone(branches, branch, candidate, g)) return candidate;
      if (g.work.left <= 0) return first;
    }
  }
  return first!;
}

/** Whether no branch but `branch` matches `candidate`; false once the checks' budget is spent. */
function alone(branches: Schema[], branch: Schema, candidate: Json, g: Gen): boolean {
  try {
    return branches.every((b) => b === branch || !matches(b, candidate, g.a!.refs, 0, g.work));
  } catch (error) {
    if (error === OUT_OF_WORK) return false;
    throw error;
  }
}

function objectValue(node: Record<string, unknown>, g: Gen, depth: number, least: boolean): Json {
  const a = g.a!;
  const properties = own(node, 'properties');
  const required = (own(node, 'required') as string[] | undefined) ?? [];
  const extra = own(node, 'additionalProperties');
  // No prototype: `__proto__` and `constructor` are names like any other.
  const out = Object.create(null) as Record<string, Json>;
  const names = isObject(properties) ? Object.keys(properties) : [];
  for (const name of names) {
    const schema = own(properties, name) as Schema;
    const wanted = required.includes(name) || (!least && g.random() < 0.6);
    if (wanted && smallest(schema, a) < Infinity) out[name] = value(schema, g, depth + 1);
  }
  for (const name of required)
    if (!names.includes(name)) out[name] = value(isObject(extra) ? extra : true, g, depth + 1);
  return out;
}

function arrayValue(node: Record<string, unknown>, g: Gen, depth: number, least: boolean): Json {
  const min = (own(node, 'minItems') as number | undefined) ?? 0;
  let limit = Math.min((own(node, 'maxItems') as number | undefined) ?? Infinity, min + 3);
  // Only as many items as have instances: the first item without one ends the array.
  for (let i = 0; i < limit; i++) if (smallest(itemSchema(node, i), g.a!) === Infinity) limit = i;
  const length = least ? min : min + Math.floor(g.random() * (limit - min + 1));
  return Array.from({ length }, (_, i) => value(itemSchema(node, i), g, depth + 1));
}

/** Words, at least `min` and at most `max` characters long. */
function phrase(g: Gen, least: boolean, min: number, max: number): string {
  const count = least ? 1 : 1 + Math.floor(g.random() * 6);
  const words = Array.from({ length: count }, () => word(g));
  let text = words.join(' ').replace(/^\w/, (c) => c.toUpperCase());
  while (text.length < min) text += ` ${word(g)}`;
  if (text.length > max) {
    text = text.slice(0, max);
    if (text.trimEnd().length >= min) text = text.trimEnd();
  }
  return text;
}

/** An integer multiple of `multipleOf` (1 without one), from 0-10 when the bounds allow. */
function integerValue(node: Record<string, unknown>, g: Gen): number {
  const { kLo, kHi, step } = intRange(node);
  let lo = Math.max(kLo, 0);
  let hi = Math.min(kHi, Math.floor(10 / step));
  if (lo > hi) [lo, hi] = kLo > 0 ? [kLo, Math.min(kHi, kLo + 10)] : [Math.max(kLo, kHi - 10), kHi];
  const k = lo + Math.floor(g.random() * (hi - lo + 1));
  return k * step || 0;
}

/** A number in [0, 1] when the bounds allow (a judge's score), two decimals when they fit. */
function numberValue(node: Record<string, unknown>, g: Gen): number {
  const r = realRange(node);
  let [a, b] = Math.max(r.lo, 0) < Math.min(r.hi, 1) ? [Math.max(r.lo, 0), Math.min(r.hi, 1)] : [r.lo, r.hi];
  if (!Number.isFinite(a)) a = b - 10;
  if (!Number.isFinite(b)) b = a + 10;
  const u = g.random();
  const x = a * (1 - u) + b * u;
  const middle = r.lo / 2 + r.hi / 2;
  const candidates = [
    Math.round(x * 100) / 100,
    x,
    a / 2 + b / 2,
    a,
    b,
    middle,
    r.lo,
    r.hi,
    r.lo + 1,
    r.hi - 1,
    0,
  ];
  return candidates.find((c) => Number.isFinite(c) && inside(r, c)) ?? 0;
}

/** `json_object`: an object of one to four entries (words, scores, counts, flags). */
function anyObject(g: Gen): Json {
  const out = Object.create(null) as Record<string, Json>;
  const count = 1 + Math.floor(g.random() * 4);
  for (let i = 0; i < count; i++) {
    const key = word(g);
    const kind = Math.floor(g.random() * 4);
    if (kind === 0) out[key] = phrase(g, false, 0, Infinity);
    else if (kind === 1) out[key] = Math.round(g.random() * 100) / 100;
    else if (kind === 2) out[key] = Math.floor(g.random() * 100);
    else out[key] = g.random() < 0.5;
  }
  return out;
}
