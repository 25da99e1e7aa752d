// Bounds on everything a server controls, in one place: how large an answer may be (per kind of
// answer), how large its headers, how many pages --all follows, how many event ids --follow keeps.
// Each is far above anything the platform sends, so that only a broken or hostile server reaches it,
// and low enough that aip's memory stays bounded whatever the server does. Past a bound, aip stops
// reading (the connection is closed) and says which limit was reached and how to raise it.
//
// Time is bounded by --timeout (TIMEOUT_HINT below): http.ts and the openai SDK apply it to each
// request, chat/complete.ts to the silence between two chunks of a stream.

import { constants } from 'node:buffer';
import { CliError, UsageError } from '../errors/errors.js';
import { thousands } from '../output/plural.js';
import type { Env } from '../settings/global-options.js';

/**
 * The hint of every timeout of a request or a stream: --timeout limits each request from sending to
 * the end of its body (so the wait for the first byte too), and the silence between chunks of a stream.
 */
export const TIMEOUT_HINT = 'raise --timeout to wait longer';

const KiB = 1024;
const MiB = 1024 * KiB;

/** The kinds of answer, each with its own size limit. */
export type BodyKind = 'page' | 'object' | 'models' | 'completion' | 'trace' | 'line';

/** Named in messages: "(the limit for a page of a list)". */
const KIND_NAMES: Record<BodyKind, string> = {
  page: 'a page of a list',
  object: 'a single object',
  models: 'a model list',
  completion: 'a chat completion',
  trace: 'a trace-ingest answer',
  line: 'one line of an event stream',
};

export const DEFAULT_BODY_LIMITS: Readonly<Record<BodyKind, number>> = {
  // Checkpoints and events come at most 100 a page; a real page, metrics and all, is under 1 MiB.
  page: 32 * MiB,
  // A job, a model, a delete answer, health, system-check, the base-model names: real ones are a few KB.
  object: 4 * MiB,
  // The inference model list: hundreds of models of under 1 KB each; catalogues grow.
  models: 16 * MiB,
  // A whole completion, or all of a streamed one: 32k tokens with top_logprobs=20 come to about 40 MiB.
  completion: 64 * MiB,
  // {accepted_spans, rejected_spans, error_message}: under 1 KB, even with a long error message.
  trace: 1 * MiB,
  // One `data:` line of a chat stream is a chunk of a few tokens; a server that sends its whole reply
  // as one chunk is still far below this.
  line: 16 * MiB,
};

/**
 * An error answer is read up to this and the rest dropped: only its message (300 characters) is shown,
 * and its status says what happened, so a cut body is no failure and is not worth a setting.
 */
export const ERROR_BODY_BYTES = 1 * MiB;

/**
 * Response headers: the platform sends under 2 KiB, and proxies in front of it (nginx's default buffer
 * for upstream headers is 4 or 8 KiB) pass no more than that. Node's default is 16 KiB, changeable by
 * NODE_OPTIONS; this is aip's own.
 */
export const DEFAULT_HEADER_BYTES = 32 * KiB;

/** --all: 10,000 pages of 100 is a million checkpoints or events, beyond any real model or job. */
export const DEFAULT_MAX_PAGES = 10_000;

/**
 * --follow hands each event on once, by id, and drops a page the server sends again. The ids of the
 * last 10,000 events are enough for that (a repeat is of a recent page: 100 pages of 100), and keep a
 * follow of a job with millions of steps to about a megabyte.
 */
export const FOLLOW_RECENT_IDS = 10_000;

/** Node cannot make a string longer than this, and every answer becomes one. */
const MAX_BODY_BYTES = Math.floor(constants.MAX_STRING_LENGTH / MiB) * MiB;

export interface Limits {
  body: Readonly<Record<BodyKind, number>>;
  headerBytes: number;
  pages: number;
}

export const DEFAULT_LIMITS: Limits = {
  body: DEFAULT_BODY_LIMITS,
  headerBytes: DEFAULT_HEADER_BYTES,
  pages: DEFAULT_MAX_PAGES,
};

const UNITS: Record<string, number> = { '': 1, k: KiB, m: MiB, g: 1024 * MiB };

/** "64M", "64MiB", "64MB", "65536k", "67108864": binary multiples, as every size aip prints. */
export function parseSize(text: string): number | undefined {
  const match = /^\s*(\d+(?:\.\d+)?)\s*([kmg]?)(?:i?b)?\s*$/i.exec(text);
  if (!match) return undefined;
  const bytes = Math.floor(Number(match[1]) * UNITS[match[2]!.toLowerCase()]!);
  return bytes > 0 ? bytes : undefined;
}

/** 33554432 → "32 MiB"; 1536 → "1.5 KiB". */
export function formatSize(bytes: number): string {
  const [unit, size] = bytes >= MiB ? ['MiB', MiB] : bytes >= KiB ? ['KiB', KiB] : ['bytes', 1];
  return `${Math.round((bytes / size) * 10) / 10} ${unit}`;
}

/** The value to suggest: twice the limit, written as the environment variable takes it. */
function doubled(bytes: number, max: number): string {
  return formatSize(Math.min(max, bytes * 2))
    .replace(' bytes', '')
    .replace(' ', '');
}

function sizeFromEnv(env: Env, name: string, max: number): number | undefined {
  const raw = env[name];
  if (raw === undefined || raw === '') return undefined;
  const bytes = parseSize(raw);
  if (bytes === undefined || bytes > max)
    throw new UsageError(
      `${name}: expected a size such as 64M or 67108864 (bytes), at most ${formatSize(max)}, got "${raw}"`,
    );
  return bytes;
}

/**
 * A line of a file aip reads (training data, transcripts, OTLP/JSON): the most it holds of one at a
 * time. A line is read whole to be checked, so memory is a few times this whatever the file (its
 * parsed objects: a line of logprobs takes ~5.5 times its size to check); a line over it is a problem
 * reported at its line, passed over without being held, and the reading goes on at the next. An RL
 * trajectory group with long conversations and logprobs is a few MB: 8 trajectories of 16k sampled
 * tokens with their logprobs come to 10.5 MiB, 8 of 32k to 21 MiB, 16 of 32k to 42 MiB (235 MB peak
 * to check); with top_logprobs=5, 8 of 32k come to 97 MiB, past the limit, and need it raised. OTLP
 * JSON is held a resource, scope or span at a time (src/traces/read/json-stream.ts), so the limit is on each.
 */
export const DEFAULT_LINE_BYTES = 64 * MiB;

const MAX_HEADER_SETTING = 16 * MiB;
const MAX_PAGES_SETTING = 100_000_000;

/**
 * The limits in effect: AIP_MAX_RESPONSE_BYTES sets the size limit of every kind of answer at once,
 * AIP_MAX_HEADER_BYTES that of headers, AIP_MAX_PAGES the pages of --all. A bad value is a usage error.
 */
export function limitsFrom(env: Env): Limits {
  const body = sizeFromEnv(env, 'AIP_MAX_RESPONSE_BYTES', MAX_BODY_BYTES);
  const headerBytes = sizeFromEnv(env, 'AIP_MAX_HEADER_BYTES', MAX_HEADER_SETTING) ?? DEFAULT_HEADER_BYTES;
  let pages = DEFAULT_MAX_PAGES;
  const rawPages = env.AIP_MAX_PAGES;
  if (rawPages !== undefined && rawPages !== '') {
    pages = Number(rawPages);
    if (!/^\s*\d+\s*$/.test(rawPages) || pages < 1 || pages > MAX_PAGES_SETTING)
      throw new UsageError(
        `AIP_MAX_PAGES: expected a whole number of pages from 1 to ${MAX_PAGES_SETTING}, got "${rawPages}"`,
      );
  }
  const bodies = body === undefined ? DEFAULT_BODY_LIMITS : limitEvery(body);
  return { body: bodies, headerBytes, pages };
}

/** The line-size limit in effect: AIP_MAX_LINE_BYTES, or DEFAULT_LINE_BYTES. A bad value is a usage error. */
export function lineLimitFrom(env: Env): number {
  return sizeFromEnv(env, 'AIP_MAX_LINE_BYTES', MAX_BODY_BYTES) ?? DEFAULT_LINE_BYTES;
}

/**
 * The problem of a line over the limit (or of what else is held whole: `what` is "the element", "the
 * span", "a property name"…), reported at its line as any other problem of a file, with how to raise it.
 */
export function lineTooLarge(limit: number, what = 'line'): string {
  return `${what} is larger than ${formatSize(limit)} (the limit; raise it with AIP_MAX_LINE_BYTES=${doubled(limit, MAX_BODY_BYTES)})`;
}

function limitEvery(bytes: number): Record<BodyKind, number> {
  const out = { ...DEFAULT_BODY_LIMITS };
  for (const kind of Object.keys(out) as BodyKind[]) out[kind] = bytes;
  return out;
}

/**
 * A limit was reached. Thrown by the transport without the service's name, which the client adds
 * (`forService`); exit 1, as any failure of the server, and never retried: the same answer would come.
 */
export class LimitError extends CliError {
  override name = 'LimitError';

  forService(service: string): LimitError {
    return new LimitError(`${service}: ${this.message}`, { hint: this.hint, cause: this.cause });
  }
}

/** "GET /v1/models", for messages. */
export function describeRequest(method: string, url: string): string {
  return `${method} ${new URL(url).pathname}`;
}

export function bodyTooLarge(where: string, kind: BodyKind, limit: number): LimitError {
  const what =
    kind === 'line'
      ? `a line of the event stream answering ${where} is longer`
      : `the answer to ${where} is larger`;
  return new LimitError(`${what} than ${formatSize(limit)} (the limit for ${KIND_NAMES[kind]})`, {
    hint: `raise it with AIP_MAX_RESPONSE_BYTES=${doubled(limit, MAX_BODY_BYTES)}`,
  });
}

export function streamTooLarge(where: string, limit: number): LimitError {
  return new LimitError(
    `the event stream answering ${where} is larger than ${formatSize(limit)} (the limit for ${KIND_NAMES.completion})`,
    { hint: `raise it with AIP_MAX_RESPONSE_BYTES=${doubled(limit, MAX_BODY_BYTES)}` },
  );
}

export function headersTooLarge(where: string, limit: number): LimitError {
  return new LimitError(
    `the headers of the answer to ${where} are larger than ${formatSize(limit)} (the limit for headers)`,
    { hint: `raise it with AIP_MAX_HEADER_BYTES=${doubled(limit, MAX_HEADER_SETTING)}` },
  );
}

export function tooManyPages(pages: number, cursor: string | undefined): LimitError {
  return new LimitError(
    `the server still said there are more items after ${thousands(pages)} pages (the limit of --all; last cursor ${cursor ?? 'none'})`,
    { hint: `raise it with AIP_MAX_PAGES=${Math.min(MAX_PAGES_SETTING, pages * 2)}` },
  );
}
