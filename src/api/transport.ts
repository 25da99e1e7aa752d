// How bytes travel. All requests, aip's own and the openai SDK's, go over node:http directly rather
// than fetch: on Node 20 the first fetch() in a process loads and compiles undici, ~100 ms that a CLI
// would pay on every run. Each goes through the proxy the environment names for it (proxy.ts). Every
// request passes the same two guards: a key never goes over plain http to a host that is not this
// machine, nor through a proxy, and with --debug each exchange is logged (its proxy too), credentials
// masked. Every answer is read within the limits of limits.ts: headers by node:http's maxHeaderSize,
// bodies here, the connection closed as soon as one passes its limit.

import type { ClientRequest, IncomingMessage } from 'node:http';
import { createRequire } from 'node:module';
import { assertKeyMayBeSentTo, redactHeader } from '../output/secrets.js';
import { truncate } from '../output/text.js';
import {
  type BodyKind,
  bodyTooLarge,
  DEFAULT_BODY_LIMITS,
  DEFAULT_HEADER_BYTES,
  describeRequest,
  ERROR_BODY_BYTES,
  headersTooLarge,
} from './limits.js';
import {
  assertKeyMayGoThrough,
  describeRoute,
  ProxyConnectionError,
  type ProxyRoute,
  type ProxyServer,
  proxyRefused,
  proxyRoute,
} from './proxy.js';

/** How much of a body to read: past `bytes`, a kind's answer fails; an 'error' answer is cut there. */
export interface BodyLimit {
  bytes: number;
  kind: BodyKind | 'error';
}

export interface TransportRequest {
  method: string;
  url: string;
  /** Lower-case names. */
  headers: Record<string, string>;
  body?: string | Buffer;
  signal: AbortSignal;
  /** Default DEFAULT_HEADER_BYTES. */
  maxHeaderBytes?: number;
  /** The limit for the body of an answer with this status (default: defaultBodyLimit). */
  bodyLimit?: (status: number) => BodyLimit;
  /** How it travels (proxy.ts); decided on the way when not given. */
  proxy?: ProxyRoute;
  /**
   * Sent on a connection of its own, never a kept-alive one: a request that must not be sent twice (a
   * create). An idle connection the server closes just as it is reused fails the request with
   * ECONNRESET, which for a create can only be read as "it may have reached the server".
   */
  freshConnection?: boolean;
}

interface ResponseHead {
  status: number;
  statusText: string;
  /** Lower-case names; repeated headers joined with ", ". */
  headers: Record<string, string>;
}

export interface TransportResponse extends ResponseHead {
  body: Buffer;
  /** The body was longer than its 'error' limit: this is its beginning. */
  cut?: boolean;
  /** From sending the request to the end of the body (module loading excluded). */
  elapsedMs: number;
}

/** A response whose head has arrived and whose body is still coming (for streams). */
export interface OpenResponse extends ResponseHead {
  stream: IncomingMessage;
  started: number;
}

export type Transport = (request: TransportRequest) => Promise<TransportResponse>;

/**
 * Milliseconds on a monotonic clock, for durations. Not performance.now(): Node loads perf_hooks on
 * the first use of `performance` (~0.5 ms of a one-request command).
 */
export function nowMs(): number {
  return Number(process.hrtime.bigint()) / 1e6;
}

/**
 * node:http or node:https, by require: an import() of a built-in goes through the ES-module loader
 * (resolution, an ES-module facade of every export, a few turns of the event loop) for nothing.
 */
const requireBuiltin = createRequire(import.meta.url);

/** A success is a single object; anything else is an error answer, read in part. */
export function defaultBodyLimit(status: number): BodyLimit {
  return status >= 200 && status < 300
    ? { bytes: DEFAULT_BODY_LIMITS.object, kind: 'object' }
    : { bytes: ERROR_BODY_BYTES, kind: 'error' };
}

function flattenHeaders(res: IncomingMessage): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(res.headers)) {
    if (value !== undefined) out[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

/** The request with its proxy decided, once for the wrappers below and openRequest. */
async function routed<T extends Pick<TransportRequest, 'url' | 'proxy'>>(request: T): Promise<T> {
  return request.proxy ? request : { ...request, proxy: await proxyRoute(request.url) };
}

/** What a CONNECT through https-proxy-agent was answered; nothing for http-proxy-agent's connection. */
interface TunnelAnswer {
  statusCode?: number;
  statusText?: string;
}

/**
 * Turns the errors and answers of the proxy itself into aip's: a proxy that could not be reached, or
 * that answered the CONNECT (or an http:// request) with a refusal instead of opening the way. The
 * refusal comes back as if it were the server's answer (https-proxy-agent replays it), so it is told
 * apart here, before anyone reads it as the platform's.
 */
function watchProxy(req: ClientRequest, proxy: ProxyServer, url: URL, signal: AbortSignal) {
  let tunnel: TunnelAnswer | undefined;
  req.on('proxyConnect', (answer: TunnelAnswer) => {
    tunnel = answer;
  });
  const refusedTunnel = () =>
    tunnel?.statusCode !== undefined && tunnel.statusCode !== 200
      ? proxyRefused(proxy, url, tunnel.statusCode, tunnel.statusText ?? '')
      : undefined;
  return {
    /**
     * The error to report for a request error. Before the proxy let it through (and on a connection of
     * its own, not one kept from an earlier request), the request never left: the proxy's trouble.
     */
    error(error: NodeJS.ErrnoException): Error {
      // Given up (the connection to the proxy closed with it): the reason, a timeout say, as without one.
      if (signal.aborted) return signal.reason;
      const pastProxy = tunnel !== undefined || req.reusedSocket;
      return refusedTunnel() ?? (pastProxy ? error : new ProxyConnectionError(proxy, error));
    },
    /** The error to report instead of this answer, when the proxy gave it. */
    refusal(res: IncomingMessage): Error | undefined {
      return (
        refusedTunnel() ??
        (res.statusCode === 407 ? proxyRefused(proxy, url, 407, res.statusMessage ?? '') : undefined)
      );
    },
  };
}

/**
 * Sends a request over node:http(s), through its proxy if it has one, and resolves once the response
 * head has arrived; rejects on connection errors and aborts. The abort signal keeps applying while the
 * body is read.
 */
export async function openRequest(request: TransportRequest): Promise<OpenResponse> {
  const url = new URL(request.url);
  const { request: send } = requireBuiltin(
    url.protocol === 'https:' ? 'node:https' : 'node:http',
  ) as typeof import('node:http');
  const proxy = (await routed(request)).proxy?.through;
  return new Promise<OpenResponse>((resolve, reject) => {
    if (request.signal.aborted) return reject(request.signal.reason);
    const headers = { ...request.headers };
    if (request.body !== undefined) headers['content-length'] = String(Buffer.byteLength(request.body));
    const started = nowMs();
    const maxHeaderSize = request.maxHeaderBytes ?? DEFAULT_HEADER_BYTES;
    // agent false: a one-off agent, so a new connection (a proxy's agent keeps its own).
    const agent = proxy?.agent ?? (request.freshConnection ? false : undefined);
    const req = send(url, { method: request.method, headers, maxHeaderSize, agent });
    proxy?.agent.giveUpWith(req, request.signal);
    const viaProxy = proxy && watchProxy(req, proxy, url, request.signal);
    const onAbort = () => req.destroy(request.signal.reason);
    request.signal.addEventListener('abort', onAbort, { once: true });
    const settle = () => request.signal.removeEventListener('abort', onAbort);
    req.on('error', (error: NodeJS.ErrnoException) => {
      settle();
      if (error.code === 'HPE_HEADER_OVERFLOW')
        reject(headersTooLarge(describeRequest(request.method, request.url), maxHeaderSize));
      else reject(viaProxy ? viaProxy.error(error) : error);
    });
    req.on('response', (res) => {
      const refusal = viaProxy?.refusal(res);
      if (refusal) {
        settle();
        res.destroy();
        return reject(refusal);
      }
      res.once('close', settle);
      resolve({
        status: res.statusCode ?? 0,
        statusText: res.statusMessage ?? '',
        headers: flattenHeaders(res),
        stream: res,
        started,
      });
    });
    req.end(request.body);
  });
}

/**
 * The whole body, within `limit`: past it the connection is closed at once, and the answer fails
 * (LimitError) or, for an error answer, is cut. A connection closed before Content-Length (or the last
 * chunk) is an error.
 */
export function readBody(
  response: OpenResponse,
  limit: BodyLimit,
  where: string,
): Promise<{ body: Buffer; cut: boolean }> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const res = response.stream;
    const over = () => {
      res.off('data', onData);
      res.destroy();
      if (limit.kind !== 'error') return reject(bodyTooLarge(where, limit.kind, limit.bytes));
      resolve({ body: Buffer.concat(chunks).subarray(0, limit.bytes), cut: true });
    };
    const onData = (chunk: Buffer) => {
      chunks.push(chunk);
      size += chunk.length;
      if (size > limit.bytes) over();
    };
    // A length declared past the limit is not worth reading.
    if (limit.kind !== 'error' && Number(response.headers['content-length']) > limit.bytes) return over();
    res.on('data', onData);
    res.on('error', reject);
    res.on('end', () => {
      if (!res.complete) reject(Object.assign(new Error('aborted'), { code: 'ECONNRESET' }));
      else resolve({ body: Buffer.concat(chunks), cut: false });
    });
  });
}

/** One request, its whole answer read. */
export const nodeTransport: Transport = async (request) => {
  const response = await openRequest(request);
  const limit = (request.bodyLimit ?? defaultBodyLimit)(response.status);
  const { body, cut } = await readBody(response, limit, describeRequest(request.method, request.url));
  return {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
    body,
    cut,
    elapsedMs: nowMs() - response.started,
  };
};

/**
 * Refuses a key bound for plain http off this machine, or through a proxy. Every request is checked,
 * whatever sends it.
 */
export function checkKeyDestination(request: Pick<TransportRequest, 'url' | 'headers' | 'proxy'>): void {
  if (!request.headers.authorization && !request.headers['wandb-api-key']) return;
  if (request.proxy) assertKeyMayGoThrough(new URL(request.url), request.proxy);
  assertKeyMayBeSentTo(request.url);
}

export function guardKeys(transport: Transport): Transport {
  return async (request) => {
    const withProxy = await routed(request);
    checkKeyDestination(withProxy);
    return transport(withProxy);
  };
}

const LOGGED_RESPONSE_HEADERS = [
  'content-type',
  'content-length',
  'x-request-id',
  'retry-after',
  'retry-after-ms',
];
const MAX_LOGGED_BODY = 4000;
/** Bodies worth logging as text; others are summarised by size. */
const TEXT_TYPES = /json|text\/|xml/i;

function describeBody(body: string | Buffer, contentType: string | undefined): string {
  if (typeof body === 'string' || TEXT_TYPES.test(contentType ?? ''))
    return truncate(body.toString(), MAX_LOGGED_BODY);
  return `(${body.length} bytes of ${contentType ?? 'binary'})`;
}

/** The --debug log of one exchange; lines are numbered, as requests run in parallel. */
export interface ExchangeLog {
  response(head: ResponseHead, elapsedMs: number): void;
  body(body: Buffer, contentType: string | undefined): void;
  failed(error: unknown, elapsedMs: number): void;
}

export type ExchangeLogger = (request: TransportRequest) => ExchangeLog;

export function exchangeLogger(log: (line: string) => void): ExchangeLogger {
  let exchanges = 0;
  return (request) => {
    const tag = `[${++exchanges}]`;
    const line = (text: string) => log(`${tag} ${text}`);
    line(`> ${request.method} ${request.url}`);
    const proxy = request.proxy && describeRoute(request.proxy, new URL(request.url));
    if (proxy) line(`* proxy: ${proxy}`);
    for (const [name, value] of Object.entries(request.headers))
      line(`> ${name}: ${redactHeader(name, value)}`);
    if (request.body !== undefined && request.body.length > 0)
      line(`> ${describeBody(request.body, request.headers['content-type'])}`);
    return {
      response(head, elapsedMs) {
        line(`< ${head.status} ${head.statusText} (${Math.round(elapsedMs)} ms)`);
        for (const name of LOGGED_RESPONSE_HEADERS) {
          const value = head.headers[name];
          if (value !== undefined) line(`< ${name}: ${value}`);
        }
      },
      body(body, contentType) {
        if (body.length > 0) line(`< ${describeBody(body, contentType)}`);
      },
      failed(error, elapsedMs) {
        const err = error as NodeJS.ErrnoException;
        const what =
          err.name === 'TimeoutError' ? 'timed out' : `${err.message}${err.code ? ` (${err.code})` : ''}`;
        line(`< failed after ${Math.round(elapsedMs)} ms: ${what}`);
      },
    };
  };
}

/** --debug: each exchange of a transport logged. */
export function logExchanges(transport: Transport, logger: ExchangeLogger): Transport {
  return async (unrouted) => {
    const request = await routed(unrouted);
    const log = logger(request);
    const started = nowMs();
    try {
      const response = await transport(request);
      log.response(response, nowMs() - started);
      log.body(response.body, response.headers['content-type']);
      return response;
    } catch (error) {
      log.failed(error, nowMs() - started);
      throw error;
    }
  };
}
