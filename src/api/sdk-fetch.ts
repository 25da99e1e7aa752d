// The fetch handed to the openai SDK: requests go through aip's own transport (node:http, the key
// guard, the --debug log) instead of Node's fetch. Event streams are passed on as they arrive; other
// bodies are read whole first, so that one cut short fails the fetch and the SDK retries it.

import { Readable } from 'node:stream';
import {
  checkKeyDestination,
  type ExchangeLogger,
  openRequest,
  readBody,
  type TransportRequest,
} from './transport.js';

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

export function sdkFetch(options: { log?: ExchangeLogger } = {}): Fetch {
  return async (input, init = {}) => {
    const body =
      typeof init.body === 'string'
        ? init.body
        : init.body instanceof Uint8Array
          ? Buffer.from(init.body)
          : undefined;
    if (init.body != null && body === undefined) throw new TypeError('aip: unsupported request body type');
    const request: TransportRequest = {
      method: (init.method ?? 'GET').toUpperCase(),
      url: input instanceof Request ? input.url : String(input),
      headers: headerRecord(init.headers),
      body,
      signal: init.signal ?? new AbortController().signal,
    };
    checkKeyDestination(request);
    const log = options.log?.(request);
    const started = performance.now();
    try {
      const open = await openRequest(request);
      log?.response(open, performance.now() - started);
      const contentType = open.headers['content-type'];
      let payload: Buffer | ReadableStream | null = null;
      if (NO_BODY.has(open.status)) open.stream.resume();
      else if (/event-stream/i.test(contentType ?? ''))
        payload = Readable.toWeb(open.stream) as ReadableStream;
      else {
        payload = await readBody(open);
        log?.body(payload, contentType);
      }
      return new Response(payload, {
        status: open.status,
        statusText: open.statusText,
        headers: open.headers,
      });
    } catch (error) {
      log?.failed(error, performance.now() - started);
      throw error;
    }
  };
}
