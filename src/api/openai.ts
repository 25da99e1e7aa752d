// The official openai SDK, configured from aip's settings, for the OpenAI-compatible parts of both
// APIs (model list, chat). It is loaded only by the commands that use it. Its errors are turned into
// aip's own, so that they get the same messages and exit codes as every other request.

import type OpenAI from 'openai';
import { type Context, DEFAULT_MAX_RETRIES, SERVICE_NAMES } from '../context.js';
import { CliError, NetworkError } from '../errors/errors.js';
import { USER_AGENT } from '../lib/version.js';
import { assertKeyMayBeSentTo } from '../output/secrets.js';
import { apiErrorFrom } from './error-body.js';
import { TIMEOUT_HINT } from './limits.js';
import { assertKeyMayGoThrough, ProxyConnectionError, proxyRoute } from './proxy.js';
import { isRetryableStatus, maxPauseMs, retryAfterMs, retryAfterRefused } from './retry.js';
import { sdkFetch } from './sdk-fetch.js';

export type OpenAIService = 'inference' | 'training';

export async function openaiClient(ctx: Context, service: OpenAIService): Promise<OpenAI> {
  const baseURL = ctx.serviceUrl(service);
  const { key } = ctx.requireApiKey();
  // Checked here too, before the SDK can turn the refusal into retried "connection errors" (a proxy
  // variable that is not a URL as well).
  assertKeyMayGoThrough(new URL(baseURL), await proxyRoute(baseURL));
  assertKeyMayBeSentTo(baseURL);
  const { default: OpenAISDK } = await import('openai');
  // The SDK keeps only the `error` member of an error body; FastAPI's {"detail": …} (the Training
  // API's shape) would be lost. Keep the whole body for sdkCall.
  class Client extends OpenAISDK {
    protected override makeStatusError(
      status: number,
      body: object,
      message: string | undefined,
      headers: Headers,
    ) {
      return Object.assign(super.makeStatusError(status, body, message, headers), {
        aipBody: body ?? message,
      });
    }
  }
  // The SDK's own backoff (connection errors, answers without Retry-After: 0.5 s doubling to 8 s) is
  // bounded by --timeout as aip's is; a Retry-After it is shown is bounded in sdk-fetch.ts.
  const longest = maxPauseMs(ctx.timeoutMs);
  const proto = Client.prototype as unknown as Record<string, unknown>;
  const backoff = proto.calculateDefaultRetryTimeoutMillis;
  if (typeof backoff === 'function')
    proto.calculateDefaultRetryTimeoutMillis = function (this: unknown, ...args: unknown[]) {
      return Math.min(longest, (backoff as (...a: unknown[]) => number).apply(this, args));
    };
  return new Client({
    apiKey: key,
    baseURL,
    // The project header (OpenAI-Project) routes usage and rate limits (api-contract.md §3.2).
    project: ctx.settings.get('project') ?? null,
    organization: null,
    maxRetries: ctx.globals.maxRetries ?? DEFAULT_MAX_RETRIES,
    timeout: ctx.timeoutMs,
    fetch: sdkFetch({
      log: ctx.exchangeLog,
      limits: ctx.limits,
      service: SERVICE_NAMES[service],
      timeoutMs: ctx.timeoutMs,
    }),
    defaultHeaders: { 'user-agent': USER_AGENT },
  });
}

function bodyText(body: unknown): string {
  return typeof body === 'string' ? body : JSON.stringify(body ?? {});
}

/**
 * Runs an SDK call, mapping its errors: HTTP errors to ApiError (both body shapes understood), a
 * refusal of our own to itself, connection trouble to NetworkError.
 */
export async function sdkCall<T>(
  service: OpenAIService,
  /** The request, for messages; `timeoutMs` is the client's (--timeout). */
  where: { method: string; url: string; timeoutMs?: number },
  call: () => Promise<T>,
): Promise<T> {
  const { APIError, APIConnectionError, APIConnectionTimeoutError } = await import('openai');
  try {
    return await call();
  } catch (error) {
    if (error instanceof CliError) throw error;
    const name = SERVICE_NAMES[service];
    // A 2xx answer whose body is not JSON: the SDK's JSON.parse says so in its own words.
    if (error instanceof SyntaxError) {
      throw new CliError(
        `malformed JSON in the ${name}'s answer (${where.method} ${new URL(where.url).pathname}): ${error.message}`,
      );
    }
    // A streamed body cut short surfaces as the socket's own error, not as an SDK error.
    const code = (error as NodeJS.ErrnoException).code;
    if (
      code === 'ECONNRESET' ||
      (error as Error).message === 'aborted' ||
      (error as Error).message === 'terminated'
    ) {
      throw new NetworkError(
        `${name}: the connection was closed before the answer was complete (${where.method} ${new URL(where.url).pathname})`,
        { cause: error },
      );
    }
    if (error instanceof APIConnectionTimeoutError) {
      const after = where.timeoutMs === undefined ? '' : ` after ${where.timeoutMs / 1000}s`;
      throw new NetworkError(
        `${name} unreachable: ${where.method} ${new URL(where.url).pathname} timed out${after}`,
        { hint: TIMEOUT_HINT },
      );
    }
    if (error instanceof APIConnectionError) {
      const cause = error.cause as (Error & { code?: string }) | undefined;
      if (cause instanceof CliError) throw cause;
      if (cause instanceof ProxyConnectionError)
        throw new NetworkError(
          `${name} unreachable: ${where.method} ${new URL(where.url).pathname}: ${cause.message}`,
          { cause: error },
        );
      throw new NetworkError(
        `${name} unreachable: ${where.method} ${new URL(where.url).pathname} failed (${cause?.code ?? cause?.message ?? error.message})`,
        { cause: error },
      );
    }
    if (error instanceof APIError && typeof error.status === 'number') {
      // A retry the server asked for too late to wait (sdk-fetch.ts turned it off): said so.
      const asked = error.headers ? retryAfterMs(Object.fromEntries(error.headers.entries())) : undefined;
      const refused =
        where.timeoutMs !== undefined &&
        isRetryableStatus(error.status) &&
        asked !== undefined &&
        asked > maxPauseMs(where.timeoutMs)
          ? retryAfterRefused(asked, where.timeoutMs)
          : undefined;
      return Promise.reject(
        apiErrorFrom({
          service: name,
          method: where.method,
          url: where.url,
          status: error.status,
          statusText: '',
          text: bodyText((error as { aipBody?: unknown }).aipBody ?? error.error),
          contentType: 'application/json',
          requestId: error.requestID ?? undefined,
          note: refused,
        }),
      );
    }
    throw error;
  }
}
