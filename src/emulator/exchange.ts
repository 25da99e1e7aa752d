// One request and its answer, as route handlers see it: parsed URL and body, the caller's key and team,
// and helpers that answer in the platform's shapes: FastAPI bodies on the Training API and trace
// ingest ({"detail": …}), the OpenAI envelope on the Inference API ({"error": {…}}).

import type { IncomingMessage, ServerResponse } from 'node:http';
import { STATUS_CODES } from 'node:http';
import type { Params } from './router.js';
import type { EmulatorState } from './state.js';
import { joined, type ReceivedBody } from './steps/read-body.js';

export type Api = 'training' | 'inference' | 'trace' | 'control';

export interface ValidationItem {
  type: string;
  loc: Array<string | number>;
  msg: string;
  input?: unknown;
}

/** The texts the platform documents for each status (api-contract.md §3.5). */
const DEFAULT_MESSAGES: Record<number, string> = {
  401: 'Authentication failed',
  402: 'You exceeded your current quota, please check your plan and billing details',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  429: 'Concurrency limit reached for requests',
  500: 'The server had an error while processing your request',
  503: 'The engine is currently overloaded, please try again later',
};

const INFERENCE_ERROR_TYPES: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  402: 'insufficient_quota',
  403: 'permission_error',
  404: 'not_found_error',
  422: 'invalid_request_error',
  429: 'rate_limit_exceeded',
};

export function defaultMessage(status: number): string {
  return DEFAULT_MESSAGES[status] ?? STATUS_CODES[status] ?? `HTTP ${status}`;
}

/** The error body a given interface answers with. */
export function errorBody(api: Api, status: number, message: string = defaultMessage(status)): unknown {
  if (api !== 'inference') return { detail: message };
  return {
    error: {
      message,
      type: INFERENCE_ERROR_TYPES[status] ?? (status >= 500 ? 'server_error' : 'error'),
      code: status,
    },
  };
}

export class InvalidJsonBody extends Error {}

/** What an Exchange is made of: the request as read, and the emulator it came to. */
interface ExchangeParts {
  req: IncomingMessage;
  res: ServerResponse;
  /** The interface whose error shape the answers take ('training' for paths outside all of them). */
  api: Api;
  method: string;
  path: string;
  query: URLSearchParams;
  received: ReceivedBody;
  requestId: string;
  state: EmulatorState;
}

export class Exchange implements ExchangeParts {
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  readonly api: Api;
  readonly method: string;
  readonly path: string;
  readonly query: URLSearchParams;
  /** The body as read, in pieces; `body` joins them the first time it is asked for. */
  readonly received: ReceivedBody;
  private joinedBody: Buffer | undefined;
  readonly requestId: string;
  readonly state: EmulatorState;
  params: Params = {};
  /** The key's owner, once authenticated. */
  team: string | undefined;
  /** A chat completion's usage, once answered in full (the request record keeps it). */
  usage: { prompt_tokens: number; completion_tokens: number } | undefined;
  /** The usage counts only if the answer went out whole (a stream). */
  usageIfFinished = false;
  private parsed: { value: unknown } | undefined;

  constructor(parts: ExchangeParts) {
    this.req = parts.req;
    this.res = parts.res;
    this.api = parts.api;
    this.method = parts.method;
    this.path = parts.path;
    this.query = parts.query;
    this.received = parts.received;
    this.requestId = parts.requestId;
    this.state = parts.state;
  }

  /** The body, whole. */
  get body(): Buffer {
    this.joinedBody ??= joined(this.received);
    return this.joinedBody;
  }

  get answered(): boolean {
    return this.res.headersSent || this.res.destroyed;
  }

  /** The body as JSON; throws InvalidJsonBody (answered as a FastAPI 422 by the dispatch step). */
  json(): unknown {
    if (!this.parsed) {
      try {
        this.parsed = { value: JSON.parse(this.body.toString('utf8')) };
      } catch (error) {
        throw new InvalidJsonBody((error as Error).message);
      }
    }
    return this.parsed.value;
  }

  send(status: number, body: unknown, headers: Record<string, string> = {}): void {
    this.sendRaw(status, JSON.stringify(body), 'application/json', headers);
  }

  sendRaw(status: number, text: string, contentType: string, headers: Record<string, string> = {}): void {
    if (this.answered) return;
    const payload = Buffer.from(text, 'utf8');
    this.res.writeHead(status, {
      'content-type': contentType,
      'content-length': String(payload.length),
      'x-request-id': this.requestId,
      ...headers,
    });
    this.res.end(payload);
  }

  error(status: number, message?: string, headers: Record<string, string> = {}): void {
    this.send(status, errorBody(this.api, status, message), headers);
  }

  /** FastAPI's 422: {"detail": [{type, loc, msg, input}]}. */
  invalid(items: ValidationItem[]): void {
    this.send(422, { detail: items });
  }
}
