// Request validation as FastAPI does it: every problem of the body or query in one 422 answer,
// {"detail": [{type, loc, msg}]}, with loc starting at "body" or "query". Bodies are checked with
// the same schema checks the CLI uses offline (src/validate).

import { type Check, validate } from '../validate/schema.js';
import type { Exchange, ValidationItem } from './exchange.js';

/** The body if it passes `check`; otherwise answers 422 and returns undefined. */
export function validBody<T>(x: Exchange, check: Check): T | undefined {
  if (x.body.length === 0) {
    x.invalid([{ type: 'missing', loc: ['body'], msg: 'Field required' }]);
    return undefined;
  }
  const value = x.json();
  const issues = validate(check, value, ['body']);
  if (issues.length > 0) {
    x.invalid(issues.map((i) => ({ type: i.type, loc: i.path, msg: i.msg })));
    return undefined;
  }
  return value as T;
}

/** Reads query parameters, collecting problems; `answer()` sends them all as one 422. */
export class QueryReader {
  readonly items: ValidationItem[] = [];

  constructor(private readonly x: Exchange) {}

  int(name: string, options: { min: number; max: number; fallback: number }): number {
    const raw = this.x.query.get(name);
    if (raw === null) return options.fallback;
    if (!/^-?\d+$/.test(raw.trim())) {
      this.items.push({
        type: 'int_parsing',
        loc: ['query', name],
        msg: 'Input should be a valid integer, unable to parse string as an integer',
      });
      return options.fallback;
    }
    const value = Number(raw);
    if (value < options.min) {
      this.items.push({
        type: 'greater_than_equal',
        loc: ['query', name],
        msg: `Input should be greater than or equal to ${options.min}`,
      });
    } else if (value > options.max) {
      this.items.push({
        type: 'less_than_equal',
        loc: ['query', name],
        msg: `Input should be less than or equal to ${options.max}`,
      });
    }
    return value;
  }

  oneOf<T extends string>(name: string, values: readonly T[], fallback: T): T {
    const raw = this.x.query.get(name);
    if (raw === null) return fallback;
    if ((values as readonly string[]).includes(raw)) return raw as T;
    const listed = values.map((v) => `'${v}'`).join(' or ');
    this.items.push({ type: 'enum', loc: ['query', name], msg: `Input should be ${listed}` });
    return fallback;
  }

  string(name: string): string | undefined {
    return this.x.query.get(name) ?? undefined;
  }

  /** Answers 422 if anything was wrong; true when it did. */
  answer(): boolean {
    if (this.items.length === 0) return false;
    this.x.invalid(this.items);
    return true;
  }
}
