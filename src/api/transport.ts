// How bytes travel. aip's own requests use node:http directly rather than fetch: on Node 20 the first
// fetch() in a process loads and compiles undici, ~100 ms that a CLI pays on every run. On top of the
// raw transport sit the two guards every request passes: a key never goes over plain http to a host
// that is not this machine, and with --debug each exchange is logged with credentials masked.

import type { IncomingMessage } from 'node:http';
import { assertKeyMayBeSentTo, redactHeader } from '../secrets.js';
import { truncate } from '../text.js';

export interface TransportRequest {
  method: string;
  url: string;
  /** Lower-case names. */
  headers: Record<string, string>;
  body?: string | Buffer;
  signal: AbortSignal;
}

export interface TransportResponse {
  status: number;
  statusText: string;
  /** Lower-case names; repeated headers joined with ", ". */
  headers: Record<string, string>;
  body: Buffer;
  /** From sending the request to the end of the body (module loading excluded). */
  elapsedMs: number;
}

export type Transport = (request: TransportRequest) => Promise<TransportResponse>;

function flattenHeaders(res: IncomingMessage): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(res.headers)) {
    if (value !== undefined) out[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

/** One request over node:http or node:https; rejects on connection errors, aborts and short bodies. */
export const nodeTransport: Transport = async (request) => {
  const url = new URL(request.url);
  const { request: send } =
    url.protocol === 'https:' ? await import('node:https') : await import('node:http');
  return new Promise<TransportResponse>((resolve, reject) => {
    if (request.signal.aborted) return reject(request.signal.reason);
    const headers = { ...request.headers };
    if (request.body !== undefined) headers['content-length'] = String(Buffer.byteLength(request.body));
    const started = performance.now();
    const req = send(url, { method: request.method, headers });
    const onAbort = () => req.destroy(request.signal.reason);
    request.signal.addEventListener('abort', onAbort, { once: true });
    const settle = () => request.signal.removeEventListener('abort', onAbort);
    req.on('error', (error) => {
      settle();
      reject(error);
    });
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('error', (error) => {
        settle();
        reject(error);
      });
      res.on('end', () => {
        settle();
        // A connection closed before Content-Length (or the last chunk) arrived is not an answer.
        if (!res.complete) return reject(Object.assign(new Error('aborted'), { code: 'ECONNRESET' }));
        resolve({
          status: res.statusCode ?? 0,
          statusText: res.statusMessage ?? '',
          headers: flattenHeaders(res),
          body: Buffer.concat(chunks),
          elapsedMs: performance.now() - started,
        });
      });
    });
    req.end(request.body);
  });
};

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

/** Refuses a key bound for plain http off this machine; this holds for every request, whatever sends it. */
export function guardKeys(transport: Transport): Transport {
  return async (request) => {
    if (request.headers.authorization || request.headers['wandb-api-key']) assertKeyMayBeSentTo(request.url);
    return transport(request);
  };
}

/** --debug: each exchange on stderr, numbered (requests run in parallel), credentials masked. */
export function logExchanges(transport: Transport, log: (line: string) => void): Transport {
  let exchanges = 0;
  return async (request) => {
    const tag = `[${++exchanges}]`;
    const line = (text: string) => log(`${tag} ${text}`);
    line(`> ${request.method} ${request.url}`);
    for (const [name, value] of Object.entries(request.headers))
      line(`> ${name}: ${redactHeader(name, value)}`);
    if (request.body !== undefined && request.body.length > 0) {
      line(`> ${describeBody(request.body, request.headers['content-type'])}`);
    }
    const started = performance.now();
    try {
      const response = await transport(request);
      line(`< ${response.status} ${response.statusText} (${Math.round(performance.now() - started)} ms)`);
      for (const name of LOGGED_RESPONSE_HEADERS) {
        const value = response.headers[name];
        if (value !== undefined) line(`< ${name}: ${value}`);
      }
      if (response.body.length > 0)
        line(`< ${describeBody(response.body, response.headers['content-type'])}`);
      return response;
    } catch (error) {
      const err = error as NodeJS.ErrnoException;
      line(
        `< failed after ${Math.round(performance.now() - started)} ms: ${err.name === 'TimeoutError' ? 'timed out' : `${err.message}${err.code ? ` (${err.code})` : ''}`}`,
      );
      throw error;
    }
  };
}
