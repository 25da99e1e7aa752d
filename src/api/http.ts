// One JSON-over-HTTP client per interface: URL joining, bearer auth, per-attempt timeouts, retries of
// idempotent requests (product.md §5), typed errors, request ids. A POST is retried only when the
// connection was never made: a create must never reach the server twice.

import { ApiError, CliError, NetworkError } from '../errors/errors.js';
import { apiErrorFrom } from './error-body.js';
import {
  type BodyKind,
  DEFAULT_LIMITS,
  ERROR_BODY_BYTES,
  formatSize,
  LimitError,
  type Limits,
  TIMEOUT_HINT,
} from './limits.js';
import { ProxyConnectionError } from './proxy.js';
import { isIdempotent, isRetryableStatus, retryAfterMs } from './retry.js';
import { type Attempt, type AttemptFailure, type RetryPolicy, withRetries } from './retrying.js';
import type { Transport, TransportResponse } from './transport.js';
import { joinUrl, type Query } from './url.js';

export type Method = 'GET' | 'POST' | 'DELETE';

export interface HttpClientOptions {
  /** For messages: "training API", "inference API", "trace ingest". */
  service: string;
  baseUrl: string;
  apiKey: string | undefined;
  transport: Transport;
  timeoutMs: number;
  maxRetries: number;
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  random: () => number;
  userAgent: string;
  /** Told about each retry before its wait (shown on stderr). */
  onRetry?: (notice: string) => void;
  /** The credential headers for a key (default: a bearer token). */
  authHeaders?: (key: string) => Record<string, string>;
  /** Sizes of answers (default DEFAULT_LIMITS). */
  limits?: Limits;
}

export interface RequestOptions {
  method: Method;
  path: string;
  query?: Query;
  body?: unknown;
  /** Send the key (default true). Health checks don't. */
  auth?: boolean;
  /** Statuses handed back as answers instead of errors; they are never retried. Default: 2xx. */
  accept?: (status: number) => boolean;
  signal?: AbortSignal;
  /** Overrides the client's per-attempt timeout (a wait with a deadline shortens it). */
  timeoutMs?: number;
  /** Overrides the client's retry budget (a polling loop that retries on its own sets 0). */
  retries?: number;
  /** A body that is not JSON, sent as is (with its own content type and encoding headers). */
  raw?: { bytes: Buffer; headers: Record<string, string> };
  /** More headers (lower-case names). */
  headers?: Record<string, string>;
  /** Safe to send twice (a POST that is not a create), so retried like a GET. */
  idempotent?: boolean;
  /** What the answer is, for its size limit (default 'object'). */
  kind?: BodyKind;
}

export interface PreparedRequest {
  method: Method;
  url: string;
  headers: Record<string, string>;
  body: string | Buffer | undefined;
}

export interface HttpResponse<T> {
  status: number;
  data: T;
  requestId: string | undefined;
  headers: Record<string, string>;
  url: string;
  elapsedMs: number;
  /** How many times the request was sent: more than 1 means an earlier attempt may have taken effect. */
  attempts: number;
}

const CONNECT_ERRORS = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']);

interface Failure {
  message: string;
  /** false when the request cannot have reached the server (connection refused, DNS). */
  mayHaveReachedServer: boolean;
  /** What to do about it (a timeout: raise --timeout). */
  hint?: string;
}

/**
 * `timedOut`: the attempt's --timeout fired. Before the answer began the error is the timeout itself;
 * once the body was coming, the connection is closed under it and the error is that close, which is
 * still the timeout, never "the connection was closed".
 */
function describeFailure(error: unknown, timeoutMs: number, timedOut: boolean): Failure {
  const err = error as NodeJS.ErrnoException;
  if (err.name === 'TimeoutError' || timedOut) {
    const during = err.name === 'TimeoutError' ? '' : ' while the answer was still arriving';
    return {
      message: `timed out after ${timeoutMs / 1000}s${during}`,
      mayHaveReachedServer: true,
      hint: TIMEOUT_HINT,
    };
  }
  // The proxy, not the server, could not be reached: the request went no further.
  if (error instanceof ProxyConnectionError) return { message: error.message, mayHaveReachedServer: false };
  const code = err.code;
  if (code && CONNECT_ERRORS.has(code)) {
    return { message: `could not connect (${code})`, mayHaveReachedServer: false };
  }
  if (code === 'ECONNRESET' || code === 'EPIPE') {
    return {
      message: 'the connection was closed before the answer was complete',
      mayHaveReachedServer: true,
    };
  }
  return { message: `request failed (${code ?? err.message})`, mayHaveReachedServer: true };
}

function parseBody(text: string, contentType: string | undefined): unknown {
  if (!text) return undefined;
  if (/json/i.test(contentType ?? '') || /^\s*[[{]/.test(text)) return JSON.parse(text);
  return text;
}

function withAttempts(error: ApiError, attempts: number): ApiError {
  error.attempts = attempts;
  return error;
}

export class HttpClient {
  constructor(readonly options: HttpClientOptions) {}

  get baseUrl(): string {
    return this.options.baseUrl;
  }

  /** Exactly what request() would send for `req` (the key included: redact before showing it). */
  prepare(req: RequestOptions): PreparedRequest {
    const o = this.options;
    const headers: Record<string, string> = { accept: 'application/json', 'user-agent': o.userAgent };
    if (req.auth !== false && o.apiKey)
      Object.assign(
        headers,
        o.authHeaders ? o.authHeaders(o.apiKey) : { authorization: `Bearer ${o.apiKey}` },
      );
    Object.assign(headers, req.headers);
    let body: string | Buffer | undefined;
    if (req.raw) {
      Object.assign(headers, req.raw.headers);
      body = req.raw.bytes;
    } else if (req.body !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(req.body);
    }
    return { method: req.method, url: joinUrl(o.baseUrl, req.path, req.query), headers, body };
  }

  /** The retry policy of every request this client sends (retrying.ts). */
  get retryPolicy(): RetryPolicy {
    const { maxRetries, timeoutMs, sleep, random, onRetry } = this.options;
    return { maxRetries, timeoutMs, sleep, random, onRetry };
  }

  async request<T>(req: RequestOptions): Promise<HttpResponse<T>> {
    const prepared = this.prepare(req);
    // Whole milliseconds, at least 1: AbortSignal.timeout throws on a fraction (--timeout 0.0001, or
    // what is left of a deadline).
    const timeoutMs = Math.max(1, Math.ceil(req.timeoutMs ?? this.options.timeoutMs));
    const where = `${req.method} ${new URL(prepared.url).pathname}`;
    return withRetries(
      this.retryPolicy,
      { where, retries: req.retries, timeoutMs, signal: req.signal },
      (retry) => this.attempt<T>(req, prepared, { where, timeoutMs, retry }),
    );
  }

  /** One sending of a request: its answer, or what failed judged for the retry loop. */
  private async attempt<T>(
    req: RequestOptions,
    { url, headers, body }: PreparedRequest,
    { where, timeoutMs, retry }: { where: string; timeoutMs: number; retry: number },
  ): Promise<Attempt<HttpResponse<T>>> {
    const o = this.options;
    const accept = req.accept ?? ((s: number) => s >= 200 && s < 300);
    const idempotent = req.idempotent ?? isIdempotent(req.method);
    const limits = o.limits ?? DEFAULT_LIMITS;
    const kind = req.kind ?? 'object';
    const bodyLimit = (status: number) =>
      accept(status)
        ? { bytes: limits.body[kind], kind }
        : { bytes: ERROR_BODY_BYTES, kind: 'error' as const };
    const timeout = AbortSignal.timeout(timeoutMs);
    const signal = req.signal ? AbortSignal.any([timeout, req.signal]) : timeout;
    let response: TransportResponse;
    try {
      response = await o.transport({
        method: req.method,
        url,
        headers,
        body,
        signal,
        maxHeaderBytes: limits.headerBytes,
        bodyLimit,
        freshConnection: !idempotent,
      });
    } catch (error) {
      // A limit passed: the same answer would come again, so it is not retried.
      if (error instanceof LimitError) throw error.forService(o.service);
      // Our own refusals (a key bound for plain http) and the caller's abort are not network trouble.
      if (req.signal?.aborted || error instanceof CliError) throw error;
      return { ok: false, failure: this.networkFailure(error, where, idempotent, timeoutMs, timeout) };
    }
    const requestId = response.headers['x-request-id'];
    const contentType = response.headers['content-type'];
    const text = response.body.toString('utf8');

    if (accept(response.status)) {
      let data: unknown;
      try {
        data = parseBody(text, contentType);
      } catch {
        throw new ApiError(
          `malformed JSON in the answer (HTTP ${response.status} from ${where}${requestId ? `, request id ${requestId}` : ''})`,
          response.status,
          requestId,
        );
      }
      const answer: HttpResponse<T> = {
        status: response.status,
        data: data as T,
        requestId,
        headers: response.headers,
        url,
        elapsedMs: response.elapsedMs,
        attempts: retry + 1,
      };
      return { ok: true, value: answer };
    }

    const exchange = {
      service: o.service,
      method: req.method,
      url,
      status: response.status,
      statusText: response.statusText,
      text,
      contentType,
      requestId,
    };
    const retryable = isRetryableStatus(response.status);
    const failure: AttemptFailure = {
      reason: `HTTP ${response.status}`,
      retryable: retryable && idempotent,
      retryAfterMs: retryAfterMs(response.headers),
      throttled: response.status === 429,
      fail: (attempts, refused) => {
        if (refused) return withAttempts(apiErrorFrom({ ...exchange, note: refused }), attempts);
        const note =
          attempts > 1
            ? retryable
              ? `gave up after ${attempts} attempts`
              : `on attempt ${attempts}`
            : retryable && !idempotent
              ? 'not retried: the request may have been processed'
              : undefined;
        const cut = response.cut ? `its body was cut at ${formatSize(ERROR_BODY_BYTES)}` : undefined;
        const notes = [note, cut].filter(Boolean).join('; ') || undefined;
        const failedError = withAttempts(apiErrorFrom({ ...exchange, note: notes }), attempts);
        failedError.uncertain = retryable && !idempotent;
        return failedError;
      },
    };
    return { ok: false, failure };
  }

  /** A request that got no answer: retryable when it may be sent again, and the error if not. */
  private networkFailure(
    error: unknown,
    where: string,
    idempotent: boolean,
    timeoutMs: number,
    timeout: AbortSignal,
  ): AttemptFailure {
    const o = this.options;
    const failure = describeFailure(error, timeoutMs, timeout.aborted);
    const retryable = idempotent || !failure.mayHaveReachedServer;
    return {
      reason: failure.message,
      retryable,
      fail: (attempts) => {
        const note = !retryable ? 'not retried: the request may have reached the server' : undefined;
        const lost = new NetworkError(
          `${o.service} unreachable: ${where} ${failure.message}${note ? `; ${note}` : attempts > 1 ? ` (after ${attempts} attempts)` : ''}`,
          { cause: error, hint: failure.hint },
        );
        lost.uncertain = !retryable;
        return lost;
      },
    };
  }
}
