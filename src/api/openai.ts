// The official openai SDK, configured from aip's settings, for the OpenAI-compatible parts of both
// APIs (model list, chat). It is loaded only by the commands that use it. Its own retries are off:
// sdkCall sends through aip's one retry loop (retrying.ts), so --max-retries and the pause rules mean
// the same as for every other request. Its errors are turned into aip's own, so that they get the
// same messages and exit codes as every other request.

import type OpenAI from 'openai';
import { type Context, SERVICE_NAMES } from '../context.js';
import { CliError, NetworkError } from '../errors/errors.js';
import type { UsageInput } from '../history/recorder.js';
import { type AnswerUsage, usageOf, usageReported } from '../history/usage-of.js';
import { USER_AGENT } from '../lib/version.js';
import { assertKeyMayBeSentTo } from '../output/secrets.js';
import { apiErrorFrom } from './error-body.js';
import { TIMEOUT_HINT } from './limits.js';
import { assertKeyMayGoThrough, ProxyConnectionError, proxyRoute } from './proxy.js';
import { isRetryableStatus, retryAfterMs } from './retry.js';
import { type AttemptFailure, type RetryPolicy, type RetryRun, withRetries } from './retrying.js';
import { sdkFetch } from './sdk-fetch.js';

export type OpenAIService = 'inference' | 'training';

/** What sdkCall needs of a client made here: which interface it speaks to, and how to retry. */
const made = new WeakMap<OpenAI, { service: OpenAIService; policy: RetryPolicy; ctx: Context }>();

export async function openaiClient(ctx: Context, service: OpenAIService): Promise<OpenAI> {
  const baseURL = ctx.serviceUrl(service);
  const { key } = ctx.requireApiKey();
  // Checked here too, before the SDK can turn the refusal into "connection errors" (a proxy variable
  // that is not a URL as well).
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
  const client = new Client({
    apiKey: key,
    baseURL,
    // The project header (OpenAI-Project) routes usage and rate limits (api-contract.md §3.2).
    project: ctx.settings.get('project') ?? null,
    organization: null,
    // sdkCall retries, by aip's rules.
    maxRetries: 0,
    timeout: ctx.timeoutMs,
    fetch: sdkFetch({
      log: ctx.exchangeLog,
      limits: ctx.limits,
      service: SERVICE_NAMES[service],
      timeoutMs: ctx.timeoutMs,
    }),
    defaultHeaders: { 'user-agent': USER_AGENT },
  });
  made.set(client, { service, policy: ctx.retryPolicy, ctx });
  return client;
}

export interface SdkCallOptions {
  /**
   * Whether a failed attempt may be sent again (default: yes, chat and model lists are safe to ask
   * twice). A stream may be only before its answer began: after that, text has been handed on.
   */
  mayResend?: () => boolean;
  /** Ctrl-C: ends a pause before a retry. */
  signal?: AbortSignal;
  /** A 429 handed to whoever adapts concurrency (rollouts) instead of retried (retrying.ts). */
  onThrottled?: RetryRun['onThrottled'];
}

/**
 * Runs an SDK call of a client made by openaiClient, through aip's retry loop, mapping its errors:
 * HTTP errors to ApiError (both body shapes understood), a refusal of our own to itself, connection
 * trouble to NetworkError.
 */
export async function sdkCall<T>(
  client: OpenAI,
  /** The request, for messages; `timeoutMs` is the client's (--timeout). */
  where: { method: string; url: string; timeoutMs?: number },
  call: () => Promise<T>,
  options: SdkCallOptions = {},
): Promise<T> {
  const own = ownOf(client);
  // The SDK's requests go through a fetch of their own: the first one begins the history here.
  own.ctx.history.contacted();
  const sdk = await import('openai');
  const run = {
    where: `${where.method} ${new URL(where.url).pathname}`,
    signal: options.signal,
    onThrottled: options.onThrottled,
  };
  return withRetries(own.policy, run, async () => {
    try {
      return { ok: true, value: await call() };
    } catch (error) {
      if (options.signal?.aborted) throw error;
      const failure = judge(sdk, error, SERVICE_NAMES[own.service], where);
      if (options.mayResend && !options.mayResend()) failure.retryable = false;
      return { ok: false, failure };
    }
  });
}

function ownOf(client: OpenAI) {
  const own = made.get(client);
  if (!own) throw new Error('internal: sdkCall is given a client that openaiClient did not make');
  return own;
}

/** What a chat request is, for the history and the budget. */
export interface Metered {
  purpose: UsageInput['purpose'];
  /** As the request names it. */
  model: string;
  /** The request's body, kept with its answer when history bodies are on. */
  request: unknown;
}

/**
 * sdkCall for a chat completion that costs tokens: its answer's usage counted by the command's budget
 * (which admitted its group beforehand: rollouts/run.ts) and recorded in the history.
 */
export async function meteredCall<T>(
  client: OpenAI,
  where: { method: string; url: string; timeoutMs?: number },
  call: () => Promise<T>,
  options: SdkCallOptions & { meter: Metered },
): Promise<T> {
  const { ctx, service } = ownOf(client);
  const answer = await sdkCall(client, where, call, options);
  const usage = usageOf(answer);
  ctx.budget?.add(options.meter.model, service, { ...usage, reported: usageReported(answer) });
  recordUsage(client, options.meter, usage, answer);
  return answer;
}

/** An answer's usage in the history (a stream's, once it has ended; meteredCall's own). */
export function recordUsage(client: OpenAI, meter: Metered, usage: AnswerUsage, answer: unknown): void {
  const { ctx, service } = ownOf(client);
  ctx.history.usage(
    { api: service, model: meter.model, purpose: meter.purpose, ...usage },
    { request: meter.request, response: answer },
  );
}

const attemptsNote = (attempts: number, retryable: boolean) =>
  attempts > 1 ? (retryable ? `gave up after ${attempts} attempts` : `on attempt ${attempts}`) : undefined;

/** What one failed SDK call means: thrown as it is when it is not trouble a retry could mend. */
function judge(
  sdk: typeof import('openai'),
  error: unknown,
  name: string,
  where: { method: string; url: string; timeoutMs?: number },
): AttemptFailure {
  if (error instanceof CliError) throw error;
  const path = `${where.method} ${new URL(where.url).pathname}`;
  // A 2xx answer whose body is not JSON: the SDK's JSON.parse says so in its own words.
  if (error instanceof SyntaxError)
    throw new CliError(`malformed JSON in the ${name}'s answer (${path}): ${error.message}`);
  const lost = (message: string, hint?: string): AttemptFailure => ({
    reason: message,
    retryable: true,
    fail: (attempts) =>
      new NetworkError(`${message}${attempts > 1 ? ` (after ${attempts} attempts)` : ''}`, {
        cause: error,
        hint,
      }),
  });
  // A body cut short surfaces as the socket's own error, not as an SDK error.
  const code = (error as NodeJS.ErrnoException).code;
  const said = (error as Error).message;
  if (code === 'ECONNRESET' || said === 'aborted' || said === 'terminated')
    return lost(`${name}: the connection was closed before the answer was complete (${path})`);
  if (error instanceof sdk.APIConnectionTimeoutError) {
    const after = where.timeoutMs === undefined ? '' : ` after ${where.timeoutMs / 1000}s`;
    return lost(`${name} unreachable: ${path} timed out${after}`, TIMEOUT_HINT);
  }
  if (error instanceof sdk.APIConnectionError) {
    const cause = error.cause as (Error & { code?: string }) | undefined;
    if (cause instanceof CliError) throw cause;
    if (cause instanceof ProxyConnectionError) return lost(`${name} unreachable: ${path}: ${cause.message}`);
    return lost(`${name} unreachable: ${path} failed (${cause?.code ?? cause?.message ?? error.message})`);
  }
  if (!(error instanceof sdk.APIError) || typeof error.status !== 'number') throw error;
  const status = error.status;
  const retryable = isRetryableStatus(status);
  const text = bodyText((error as { aipBody?: unknown }).aipBody ?? error.error);
  return {
    reason: `HTTP ${status}`,
    retryable,
    retryAfterMs: error.headers ? retryAfterMs(Object.fromEntries(error.headers.entries())) : undefined,
    throttled: status === 429,
    fail: (attempts, refused) => {
      const failed = apiErrorFrom({
        service: name,
        method: where.method,
        url: where.url,
        status,
        statusText: '',
        text,
        contentType: 'application/json',
        requestId: error.requestID ?? undefined,
        note: refused ?? attemptsNote(attempts, retryable),
      });
      failed.attempts = attempts;
      return failed;
    },
  };
}

function bodyText(body: unknown): string {
  return typeof body === 'string' ? body : JSON.stringify(body ?? {});
}

/** Every model the Inference API lists, all pages, through the retry loop (models list, chat, a judge). */
export async function listInferenceModels(ctx: Context, client: OpenAI): Promise<OpenAI.Models.Model[]> {
  const where = { method: 'GET', url: `${ctx.serviceUrl('inference')}/models`, timeoutMs: ctx.timeoutMs };
  return sdkCall(client, where, async () => {
    const all: OpenAI.Models.Model[] = [];
    for await (const model of client.models.list()) all.push(model);
    return all;
  });
}
