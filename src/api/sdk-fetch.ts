// The fetch handed to the openai SDK: requests go over node:http rather than Node's fetch (whose
// first call in a process costs ~100 ms to load), through the same key guard and --debug log as aip's
// own requests. Response bodies stay streams, so that server-sent events arrive as they are sent.

import type { IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';
import { assertKeyMayBeSentTo, redactHeader } from '../secrets.js';
import { truncate } from '../text.js';

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

function responseHeaders(res: IncomingMessage): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  for (const [name, value] of Object.entries(res.headers)) {
    if (Array.isArray(value)) for (const v of value) out.push([name, v]);
    else if (value !== undefined) out.push([name, value]);
  }
  return out;
}

/** Statuses whose responses have no body (the Response constructor refuses one). */
const NO_BODY = new Set([101, 204, 205, 304]);

export function sdkFetch(options: { debug?: (line: string) => void } = {}): Fetch {
  let exchanges = 0;
  return async (input, init = {}) => {
    const url = input instanceof Request ? input.url : String(input);
    const method = (init.method ?? 'GET').toUpperCase();
    const headers = headerRecord(init.headers);
    if (headers.authorization) assertKeyMayBeSentTo(url);
    const body = typeof init.body === 'string' || init.body instanceof Uint8Array ? init.body : undefined;
    if (init.body != null && body === undefined) throw new TypeError('aip: unsupported request body type');
    const log = options.debug
      ? (
          (n) => (line: string) =>
            options.debug!(`[sdk ${n}] ${line}`)
        )(++exchanges)
      : undefined;
    if (log) {
      log(`> ${method} ${url}`);
      for (const [name, value] of Object.entries(headers)) log(`> ${name}: ${redactHeader(name, value)}`);
      if (typeof body === 'string' && body) log(`> ${truncate(body, 4000)}`);
    }
    const { request } = url.startsWith('https:') ? await import('node:https') : await import('node:http');
    const signal = init.signal ?? undefined;
    const started = performance.now();
    return new Promise<Response>((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason);
      const req = request(url, { method, headers });
      const onAbort = () => req.destroy(signal?.reason);
      signal?.addEventListener('abort', onAbort, { once: true });
      req.on('error', (error) => {
        signal?.removeEventListener('abort', onAbort);
        log?.(`< failed: ${error.message}`);
        reject(error);
      });
      req.on('response', (res) => {
        res.on('close', () => signal?.removeEventListener('abort', onAbort));
        const status = res.statusCode ?? 0;
        log?.(`< ${status} ${res.statusMessage ?? ''} (${Math.round(performance.now() - started)} ms)`);
        if (log)
          for (const name of ['content-type', 'x-request-id', 'retry-after'])
            if (res.headers[name]) log(`< ${name}: ${res.headers[name]}`);
        const stream = NO_BODY.has(status) ? null : (Readable.toWeb(res) as ReadableStream<Uint8Array>);
        const response = new Response(stream, {
          status,
          statusText: res.statusMessage,
          headers: responseHeaders(res),
        });
        if (log && /json/.test(String(res.headers['content-type'] ?? ''))) {
          response
            .clone()
            .text()
            .then((text) => text && log(`< ${truncate(text, 4000)}`))
            .catch(() => undefined);
        }
        resolve(response);
      });
      req.end(body);
    });
  };
}
