// A small vocabulary for checking JSON values against the platform's schemas, written from the
// OpenAPI document's types. Each check appends issues (path, pydantic-style type and message) instead
// of stopping at the first, so that one run reports every problem. The same checks serve the CLI
// (offline validation, `file:line: path: problem`) and the emulator (FastAPI 422 bodies).

import { isObject } from '../lib/json.js';

export type Path = Array<string | number>;

export interface Issue {
  path: Path;
  /** pydantic's error type: missing, string_type, literal_error, … */
  type: string;
  msg: string;
}

export type Check = (value: unknown, path: Path, issues: Issue[]) => void;

/** What a value is, for messages: "a string", "null", "an array"… */
export function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return 'an object';
  if (typeof value === 'number')
    return Number.isFinite(value) ? `the number ${value}` : 'a non-finite number';
  if (typeof value === 'string')
    return value.length > 40 ? 'a string' : `the string ${JSON.stringify(value)}`;
  return `a ${typeof value}`;
}

function fail(issues: Issue[], path: Path, type: string, msg: string): void {
  issues.push({ path, type, msg });
}

export const str: Check = (v, path, issues) => {
  if (typeof v !== 'string')
    fail(issues, path, 'string_type', `Input should be a valid string, not ${describe(v)}`);
};

/** A JSON number. Non-finite values are refused: JSON cannot carry them (1e999 reads as Infinity). */
export const num: Check = (v, path, issues) => {
  if (typeof v !== 'number')
    fail(issues, path, 'float_type', `Input should be a valid number, not ${describe(v)}`);
  else if (!Number.isFinite(v)) fail(issues, path, 'finite_number', 'Input should be a finite number');
};

export const int: Check = (v, path, issues) => {
  if (typeof v !== 'number' || !Number.isInteger(v)) {
    fail(issues, path, 'int_type', `Input should be a valid integer, not ${describe(v)}`);
  }
};

export const bool: Check = (v, path, issues) => {
  if (typeof v !== 'boolean')
    fail(issues, path, 'bool_type', `Input should be a valid boolean, not ${describe(v)}`);
};

const UUID = /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;

/** A UUID (format: uuid), as pydantic reads one. */
export const uuid: Check = (v, path, issues) => {
  if (typeof v !== 'string' || !UUID.test(v))
    fail(issues, path, 'uuid_parsing', `Input should be a valid UUID, not ${describe(v)}`);
};

/** Anything at all (free-form objects' values). */
export const anything: Check = () => undefined;

/** An ISO 8601 date-time, as pydantic reads one. */
const DATE_TIME =
  /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?(?:Z|[+-](\d{2}):?(\d{2}))?$/i;

/** A real calendar date and clock time: Date.parse would roll 2025-02-30 over to March. */
function isDateTime(text: string): boolean {
  const m = DATE_TIME.exec(text);
  if (!m) return false;
  const [year, month, day, hour, minute, second, offsetHour, offsetMinute] = m
    .slice(1)
    .map((x) => (x === undefined ? 0 : Number(x)));
  const daysInMonth = new Date(Date.UTC(year!, month!, 0)).getUTCDate();
  return (
    month! >= 1 &&
    month! <= 12 &&
    day! >= 1 &&
    day! <= daysInMonth &&
    hour! <= 23 &&
    minute! <= 59 &&
    second! <= 59 &&
    offsetHour! <= 23 &&
    offsetMinute! <= 59
  );
}

export const dateTime: Check = (v, path, issues) => {
  const ok = typeof v === 'string' && isDateTime(v);
  if (!ok)
    fail(issues, path, 'datetime_type', `Input should be a valid datetime (ISO 8601), not ${describe(v)}`);
};

/** 'a', 'b' or 'c' */
export const quoteList = (values: readonly string[]) =>
  values.length === 1
    ? `'${values[0]}'`
    : `${values
        .slice(0, -1)
        .map((x) => `'${x}'`)
        .join(', ')} or '${values.at(-1)}'`;

export function literal(...values: string[]): Check {
  return (v, path, issues) => {
    if (typeof v !== 'string' || !values.includes(v)) {
      fail(issues, path, 'literal_error', `Input should be ${quoteList(values)}, not ${describe(v)}`);
    }
  };
}

export function arr(item: Check): Check {
  return (v, path, issues) => {
    if (!Array.isArray(v))
      return fail(issues, path, 'list_type', `Input should be a valid list, not ${describe(v)}`);
    v.forEach((element, i) => {
      item(element, [...path, i], issues);
    });
  };
}

/** An object with any keys, each value checked. */
export function record(value: Check): Check {
  return (v, path, issues) => {
    if (!isObject(v))
      return fail(issues, path, 'dict_type', `Input should be a valid dictionary, not ${describe(v)}`);
    for (const [key, element] of Object.entries(v)) value(element, [...path, key], issues);
  };
}

export function nullable(check: Check): Check {
  return (v, path, issues) => {
    if (v !== null) check(v, path, issues);
  };
}

/**
 * Passes when any of the checks passes. Otherwise: when every alternative refused the value itself,
 * one issue naming them all (`expected`, e.g. "a number or a boolean"); else the issues of the
 * closest alternative (fewest issues).
 */
export function anyOf(expected: string, ...checks: Check[]): Check {
  return (v, path, issues) => {
    let best: Issue[] | undefined;
    let allAtTop = true;
    for (const check of checks) {
      const found: Issue[] = [];
      check(v, path, found);
      if (found.length === 0) return;
      if (found.some((i) => i.path.length !== path.length)) allAtTop = false;
      if (!best || found.length < best.length) best = found;
    }
    if (allAtTop)
      issues.push({ path, type: 'union_type', msg: `Input should be ${expected}, not ${describe(v)}` });
    else issues.push(...(best ?? []));
  };
}

/** A number within bounds (after `check` has accepted its type), as pydantic's ge/le constraints. */
export function within(check: Check, min: number, max = Number.POSITIVE_INFINITY): Check {
  return (v, path, issues) => {
    const before = issues.length;
    check(v, path, issues);
    if (issues.length > before || typeof v !== 'number') return;
    if (v < min) fail(issues, path, 'greater_than_equal', `Input should be greater than or equal to ${min}`);
    else if (v > max) fail(issues, path, 'less_than_equal', `Input should be less than or equal to ${max}`);
  };
}

/** An array with at least one item. */
export function nonEmpty(check: Check): Check {
  return (v, path, issues) => {
    if (Array.isArray(v) && v.length === 0)
      return fail(issues, path, 'too_short', 'List should have at least 1 item after validation, not 0');
    check(v, path, issues);
  };
}

export interface Fields {
  [name: string]: Check;
}

/**
 * An object with required and optional fields. Other keys are allowed (pydantic ignores extras, and
 * the platform's newer revisions add fields).
 */
export function obj(required: Fields, optional: Fields = {}): Check {
  return (v, path, issues) => {
    if (!isObject(v))
      return fail(issues, path, 'model_type', `Input should be an object, not ${describe(v)}`);
    for (const [name, check] of Object.entries(required)) {
      if (v[name] === undefined) fail(issues, [...path, name], 'missing', 'Field required');
      else check(v[name], [...path, name], issues);
    }
    for (const [name, check] of Object.entries(optional)) {
      if (v[name] !== undefined) check(v[name], [...path, name], issues);
    }
  };
}

/** Runs a check and returns its issues. */
export function validate(check: Check, value: unknown, path: Path = []): Issue[] {
  const issues: Issue[] = [];
  check(value, path, issues);
  return issues;
}

/** "trajectories[0].messages_and_choices[2].role" */
export function formatPath(path: Path): string {
  let out = '';
  for (const part of path) out += typeof part === 'number' ? `[${part}]` : out ? `.${part}` : part;
  return out || '(top level)';
}
