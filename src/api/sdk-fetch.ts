// The fetch handed to the openai SDK: requests go through aip's own transport (node:http, the proxy
// the environment names, the key guard, the --debug log, the limits of limits.ts) instead of Node's
// fetch. Event streams are passed on as they arrive, each line and the whole within their limits;
// other bodies are read whole first, so that one cut short fails the fetch and the SDK retries it.
//
// Time: the SDK's --timeout covers the fetch, so a whole body read here is within it; an event stream,
// passed on after the head, is given up after --timeout without a byte, whoever reads it (a streamed
// chat, or a piped one whose server streamed anyway). The SDK retries nothing (openai.ts): sdkCall
// does, by aip's rules.
//
// A limit passed is not thrown from fetch: the SDK would take it for a connection error, which aip's
// retry loop retries. It comes as the body of the response instead, which the SDK reads once and
// fails with. So does a proxy's refusal, which would come again just the same.

import type { IncomingMessage } from 'node:http';
import { createRequire } from 'node:module';
import { type CliError, NetworkError } from '../errors/errors.js';
import {
  type BodyKind,
  bodyTooLarge,
  DEFAULT_LIMITS,
  describeRequest,
  ERROR_BODY_BYTES,
  LimitError,
  type Limits,
  streamTooLarge,
  TIMEOUT_HINT,
} from './limits.js';
import { ProxyRefusedError, proxyRoute } from './proxy.js';
import {
  checkKeyDestination,
  type ExchangeLogger,
  nowMs,
  type OpenResponse,
  openRequest,
  readBody,
  type TransportRequest,
} from './transport.js';

/**
 * node:stream, required when a stream comes: an ES-module import of it evaluates all its exports,
 * and the `promises` getter loads stream/promises, in every command that only lists models.
 */
const requireBuiltin = createRequire(import.meta.url);

export type Fetch = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

function headerRecord(headers: RequestInit['headers']): Record<string, string> {
  const out: Record<string, string> = {};
  if (!headers) return out;
  if (typeof (headers as Headers).forEach === 'function' && !Array.isArray(headers)) {
    (headers as Headers).forEach((value, name) => {
      out[name.toLowerCase()] = value;
    });
    return out;
  }
  const entries = Array.isArray(headers) ? headers : Object.entries(headers as Record<string, string>);
  for (const [name, value] of entries)
    if (name !== undefined && value !== undefined) out[name.toLowerCase()] = String(value);
  return out;
}

/** Statuses whose responses have no body (the Response constructor refuses one). */
const NO_BODY = new Set([101, 204, 205, 304]);

/** The SDK asks for chat completions and the model list; anything else is sized as a model list. */
const kindOf = (url: string): BodyKind =>
  /\/chat\/completions\/?$/.test(new URL(url).pathname) ? 'completion' : 'models';

/** A response whose body fails with `error` when read (the head is the real one when there is one). */
function failing(error: CliError, head?: OpenResponse): Response {
  const body = new ReadableStream({ start: (controller) => controller.error(error) });
  return new Response(body, { status: head?.status ?? 200, headers: head?.headers });
}

/** An event stream that sent nothing for --timeout: a timeout, named as such. */
export class StreamSilenceError extends NetworkError {
  override name = 'StreamSilenceError';
  constructor(
    readonly where: string,
    readonly silentMs: number,
    service?: string,
  ) {
    super(
      `${service ? `${service}: ` : ''}timed out: no data for ${silentMs / 1000}s on the event stream answering ${where}`,
      { hint: TIMEOUT_HINT },
    );
  }
}

/** Where the first and the last line break of `chunk` are (-1: none). */
function lineBreaks(chunk: Buffer): { first: number; last: number } {
  const lf = chunk.indexOf(10);
  const cr = chunk.indexOf(13);
  const first = lf < 0 ? cr : cr < 0 ? lf : Math.min(lf, cr);
  return { first, last: Math.max(chunk.lastIndexOf(10), chunk.lastIndexOf(13)) };
}

/**
 * An event stream passed on as it comes, whole lines at a time: the unfinished end of a line is held
 * until its line break. Past a line's limit or the whole's, it fails and the connection is closed.
 * (Whole lines also spare the SDK's line decoder, which rescans a partial line on each chunk.)
 */
function limitedStream(
  res: IncomingMessage,
  limits: Limits,
  where: string,
  fail: (error: LimitError) => LimitError,
  silence: { ms: number; error: () => CliError } | undefined,
): ReadableStream {
  const lineLimit = limits.body.line;
  const totalLimit = limits.body.completion;
  let total = 0;
  let held: Buffer[] = [];
  let line = 0;
  const { Readable, Transform } = requireBuiltin('node:stream') as typeof import('node:stream');
  const limiter = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      total += chunk.length;
      if (total > totalLimit) return done(fail(streamTooLarge(where, totalLimit)));
      const { first, last } = lineBreaks(chunk);
      const tail = last < 0 ? chunk.length : chunk.length - last - 1;
      if (line + (first < 0 ? chunk.length : first) > lineLimit || tail > lineLimit)
        return done(fail(bodyTooLarge(where, 'line', lineLimit)));
      if (last < 0) {
        held.push(chunk);
        line += chunk.length;
        return done();
      }
      const whole = Buffer.concat([...held, chunk.subarray(0, last + 1)]);
      held = tail > 0 ? [chunk.subarray(last + 1)] : [];
      line = tail;
      done(null, whole);
    },
    flush(done) {
      done(null, held.length > 0 ? Buffer.concat(held) : undefined);
    },
  });
  // Silence: --timeout without a byte ends the stream, from the head on (the SDK's own timeout ends with
  // the head). Reset by every chunk that arrives, line or not.
  let timer: NodeJS.Timeout | undefined;
  const quiet = () => {
    if (!silence) return;
    clearTimeout(timer);
    timer = setTimeout(() => limiter.destroy(silence.error()), Math.max(1, Math.ceil(silence.ms)));
  };
  const done = () => clearTimeout(timer);
  quiet();
  res.on('data', quiet);
  res.once('end', done);
  res.once('close', done);
  limiter.once('close', done);
  res.on('error', (error) => limiter.destroy(error));
  limiter.on('error', () => res.destroy());
  res.pipe(limiter);
  return Readable.toWeb(limiter) as ReadableStream;
}

export function sdkFetch(
  options: {
    log?: ExchangeLogger;
    limits?: Limits;
    service?: string;
    /** --timeout: the longest silence of an event stream. */
    timeoutMs?: number;
  } = {},
): Fetch {
  const limits = options.limits ?? DEFAULT_LIMITS;
  const fail = (error: LimitError) => (options.service ? error.forService(options.service) : error);
  return async (input, init = {}) => {
    const body =
      typeof init.body === 'string'
        ? init.body
        : init.body instanceof Uint8Array
          ? Buffer.from(init.body)
          : undefined;
    if (init.body != null && body === undefined) throw new TypeError('aip: unsupported request body type');
    const url = input instanceof Request ? input.url : String(input);
    const request: TransportRequest = {
      method: (init.method ?? 'GET').toUpperCase(),
      url,
      headers: headerRecord(init.headers),
      body,
      signal: init.signal ?? new AbortController().signal,
      maxHeaderBytes: limits.headerBytes,
      proxy: await proxyRoute(url),
    };
    checkKeyDestination(request);
    const where = describeRequest(request.method, request.url);
    const log = options.log?.(request);
    const started = nowMs();
    let open: OpenResponse | undefined;
    try {
      open = await openRequest(request);
      log?.response(open, nowMs() - started);
      const contentType = open.headers['content-type'];
      let payload: Buffer | ReadableStream | null = null;
      if (NO_BODY.has(open.status)) open.stream.resume();
      else if (/event-stream/i.test(contentType ?? '')) {
        const ms = options.timeoutMs;
        const silence =
          ms === undefined
            ? undefined
            : { ms, error: () => new StreamSilenceError(where, ms, options.service) };
        payload = limitedStream(open.stream, limits, where, fail, silence);
      } else {
        const kind = kindOf(request.url);
        const limit =
          open.status >= 200 && open.status < 300
            ? { bytes: limits.body[kind], kind }
            : { bytes: ERROR_BODY_BYTES, kind: 'error' as const };
        payload = (await readBody(open, limit, where)).body;
        log?.body(payload, contentType);
      }
      return new Response(payload, {
        status: open.status,
        statusText: open.statusText,
        headers: open.headers,
      });
    } catch (error) {
      log?.failed(error, nowMs() - started);
      // Given up by the SDK (its --timeout, or Ctrl-C) while the body came: the close that followed is
      // not the server's doing. The abort itself goes back, so that the SDK names it a timeout.
      if (request.signal.aborted) throw request.signal.reason;
      if (error instanceof LimitError) return failing(fail(error), open);
      if (error instanceof ProxyRefusedError) return failing(error, open);
      throw error;
    }
  };
}
