// Fault injection: "make the next N requests to this route fail in this way". A fault matches a method
// (or any) and a path ('*' = one path segment, '**' = anything), and is used up after `times` hits.
//
//   {"path": "/training/v1/health", "status": 503, "retry_after": 1, "times": 2}   an error answer
//   {"path": "/inference/v1/models", "delay_ms": 5000}                              a stall, then normal
//   {"path": "/training/v1/**", "drop": true}                                       connection dropped
//   {"path": "/inference/v1/chat/completions", "cut_after_bytes": 200}              answer cut short
//   {"path": "/training/v1/health", "stall_body_ms": 600000}                         head at once, body late
//   {"path": "/trace/**", "status": 503, "probability": 0.1, "times": 1000}          one in ten, at random
//   {"path": "/training/v1/preview/training-jobs/*/events", "status": 500, "skip": 1}  the second page fails
//
// `status` may carry `body` (JSON) or `raw_body` + `content_type` (an HTML error page, say); a delay
// combines with any of the others.

import { isObject } from '../lib/json.js';
import { seededRandom } from '../lib/seeded-random.js';

export interface FaultSpec {
  method?: string;
  path: string;
  times: number;
  status?: number;
  retry_after?: string;
  body?: unknown;
  raw_body?: string;
  content_type?: string;
  delay_ms?: number;
  drop?: boolean;
  cut_after_bytes?: number;
  /** The head of the answer goes at once, its body this long after (a slow answer; a mute stream). */
  stall_body_ms?: number;
  /** Only this share of the matching requests gets the fault (seeded: the same run, the same picks). */
  probability?: number;
  /** This many matching requests pass unharmed before the fault starts. */
  skip?: number;
}

export interface Fault extends FaultSpec {
  id: string;
  kind: 'status' | 'drop' | 'cut' | 'delay' | 'stall-body';
  remaining: number;
  applied: number;
  /** Matching requests still to let through before the fault starts. */
  skipping: number;
}

export class FaultSpecError extends Error {}

function wholeNumber(value: unknown, name: string, min: number, max: number): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw new FaultSpecError(`${name} must be a whole number from ${min} to ${max}`);
  }
  return value;
}

export function parseFaultSpec(input: unknown): FaultSpec {
  if (!isObject(input)) throw new FaultSpecError('a fault is a JSON object');
  if (typeof input.path !== 'string' || !input.path.startsWith('/')) {
    throw new FaultSpecError('path must be a string starting with /');
  }
  if (input.method !== undefined && typeof input.method !== 'string')
    throw new FaultSpecError('method must be a string');
  const spec: FaultSpec = {
    path: input.path,
    method: typeof input.method === 'string' ? input.method.toUpperCase() : undefined,
    times: wholeNumber(input.times, 'times', 1, 1_000_000) ?? 1,
    skip: wholeNumber(input.skip, 'skip', 0, 1_000_000),
    status: wholeNumber(input.status, 'status', 100, 599),
    delay_ms: wholeNumber(input.delay_ms, 'delay_ms', 0, 600_000),
    cut_after_bytes: wholeNumber(input.cut_after_bytes, 'cut_after_bytes', 0, 1 << 30),
    stall_body_ms: wholeNumber(input.stall_body_ms, 'stall_body_ms', 0, 600_000),
    drop: input.drop === true,
    body: input.body,
    raw_body: typeof input.raw_body === 'string' ? input.raw_body : undefined,
    content_type: typeof input.content_type === 'string' ? input.content_type : undefined,
  };
  if (input.probability !== undefined) {
    const p = input.probability;
    if (typeof p !== 'number' || !(p > 0 && p <= 1))
      throw new FaultSpecError('probability must be a number in (0, 1]');
    spec.probability = p;
  }
  if (input.retry_after !== undefined) {
    if (typeof input.retry_after !== 'number' && typeof input.retry_after !== 'string') {
      throw new FaultSpecError('retry_after must be seconds or an HTTP date');
    }
    spec.retry_after = String(input.retry_after);
  }
  const kinds = [spec.status !== undefined, spec.drop, spec.cut_after_bytes !== undefined].filter(
    Boolean,
  ).length;
  if (kinds > 1) throw new FaultSpecError('give only one of status, drop, cut_after_bytes');
  if (spec.drop && spec.stall_body_ms !== undefined)
    throw new FaultSpecError('a dropped connection has no body to stall: give drop or stall_body_ms');
  if (kinds === 0 && spec.delay_ms === undefined && spec.stall_body_ms === undefined) {
    throw new FaultSpecError('give one of status, drop, cut_after_bytes, delay_ms or stall_body_ms');
  }
  return spec;
}

function globToRegExp(glob: string): RegExp {
  const source = glob
    .split(/(\*\*|\*)/)
    .map((part) =>
      part === '**' ? '.*' : part === '*' ? '[^/]*' : part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'),
    )
    .join('');
  return new RegExp(`^${source}$`);
}

export class FaultStore {
  private faults: Array<Fault & { matcher: RegExp }> = [];
  private nextId = 1;
  private readonly random = seededRandom(0x5eed);

  add(input: unknown): Fault {
    const spec = parseFaultSpec(input);
    const kind =
      spec.status !== undefined
        ? 'status'
        : spec.drop
          ? 'drop'
          : spec.cut_after_bytes !== undefined
            ? 'cut'
            : spec.delay_ms === undefined && spec.stall_body_ms !== undefined
              ? 'stall-body'
              : 'delay';
    const fault = {
      ...spec,
      id: `fault-${this.nextId++}`,
      kind,
      remaining: spec.times,
      applied: 0,
      skipping: spec.skip ?? 0,
    } as const;
    this.faults.push({ ...fault, matcher: globToRegExp(spec.path) });
    return fault;
  }

  /** The first live fault for this request, used up by one. */
  take(method: string, path: string): Fault | undefined {
    const fault = this.faults.find(
      (f) =>
        f.remaining > 0 &&
        (!f.method || f.method === method) &&
        f.matcher.test(path) &&
        (f.probability === undefined || this.random() < f.probability),
    );
    if (!fault) return undefined;
    if (fault.skipping > 0) {
      fault.skipping--;
      return undefined;
    }
    fault.remaining--;
    fault.applied++;
    return fault;
  }

  list(): Fault[] {
    return this.faults.map(({ matcher: _matcher, ...fault }) => fault);
  }

  remove(id: string): boolean {
    const before = this.faults.length;
    this.faults = this.faults.filter((f) => f.id !== id);
    return this.faults.length < before;
  }

  clear(): void {
    this.faults = [];
  }
}
