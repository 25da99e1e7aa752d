// The Inference API's model list over aip's own transport (node:http, the proxy the environment names,
// the key guard, the --debug log, the limits of limits.ts), without the openai SDK: loading the SDK
// (and what it brings) cost `models list` more than the request itself. The request is the SDK's
// (GET {inference-url}/models, the key as a bearer token, the project's OpenAI-Project header), retried
// by the same loop (retrying.ts), and every failure is worded as sdkCall (openai.ts) words the SDK's:
// the same messages, hints and exit codes whichever way the list is asked for. Chat stays on the SDK.
//
// The answer is untrusted: its size is bounded as a model list's (limits.ts), and it must be
// `{ "data": [ { "id": "…", … }, … ] }`; the models are handed on as they came (--json prints them so).

import type { Context } from '../context.js';
import { SERVICE_NAMES } from '../context.js';
import { CliError, NetworkError } from '../errors/errors.js';
import { isObject } from '../lib/json.js';
import { USER_AGENT } from '../lib/version.js';
import { assertKeyMayBeSentTo } from '../output/secrets.js';
import { apiErrorFrom } from './error-body.js';
import { ERROR_BODY_BYTES, LimitError, TIMEOUT_HINT } from './limits.js';
import { assertKeyMayGoThrough, ProxyConnectionError, proxyRoute } from './proxy.js';
import { isRetryableStatus, retryAfterMs } from './retry.js';
import { type Attempt, type AttemptFailure, withRetries } from './retrying.js';
import type { TransportResponse } from './transport.js';
import { joinUrl } from './url.js';

/** A model as the Inference API lists it (OpenAI's shape); other members are kept as they came. */
export interface InferenceModel {
  id: string;
  object?: string;
  created?: number;
  owned_by?: string;
  [member: string]: unknown;
}

/** What one request is, for messages: "GET /v1/models", and the timeout it had. */
interface Where {
  name: string;
  path: string;
  url: string;
  timeoutMs: number;
}

/** Every model the Inference API lists (one page: the list is not paginated), through the retry loop. */
export async function listInferenceModelsDirect(ctx: Context): Promise<InferenceModel[]> {
  const baseUrl = ctx.serviceUrl('inference');
  const { key } = ctx.requireApiKey();
  // As openaiClient checks before anything is sent (a proxy variable that is not a URL as well).
  assertKeyMayGoThrough(new URL(baseUrl), await proxyRoute(baseUrl));
  assertKeyMayBeSentTo(baseUrl);
  const url = joinUrl(baseUrl, '/models');
  const headers: Record<string, string> = {
    accept: 'application/json',
    authorization: `Bearer ${key}`,
    'user-agent': USER_AGENT,
  };
  // The project header routes usage and rate limits (api-contract.md §3.2), as the SDK sends it.
  const project = ctx.settings.get('project');
  if (project) headers['openai-project'] = project;
  const where: Where = {
    name: SERVICE_NAMES.inference,
    path: `GET ${new URL(url).pathname}`,
    url,
    timeoutMs: ctx.timeoutMs,
  };
  return withRetries(ctx.retryPolicy, { where: where.path }, () => attempt(ctx, headers, where));
}

async function attempt(
  ctx: Context,
  headers: Record<string, string>,
  where: Where,
): Promise<Attempt<InferenceModel[]>> {
  const { limits } = ctx;
  const timeout = AbortSignal.timeout(Math.max(1, Math.ceil(where.timeoutMs)));
  let response: TransportResponse;
  try {
    response = await ctx.transport({
      method: 'GET',
      url: where.url,
      headers,
      signal: timeout,
      maxHeaderBytes: limits.headerBytes,
      bodyLimit: (status) =>
        status >= 200 && status < 300
          ? { bytes: limits.body.models, kind: 'models' }
          : { bytes: ERROR_BODY_BYTES, kind: 'error' },
    });
  } catch (error) {
    return { ok: false, failure: lost(error, where, timeout.aborted) };
  }
  if (response.status >= 200 && response.status < 300) return { ok: true, value: modelsOf(response, where) };
  return { ok: false, failure: refused(response, where) };
}

/** No answer: what sdkCall says of the SDK's connection errors. A limit passed, or our own refusal, as is. */
function lost(error: unknown, where: Where, timedOut: boolean): AttemptFailure {
  if (error instanceof LimitError) throw error.forService(where.name);
  if (error instanceof CliError) throw error;
  const failure = (message: string, hint?: string): AttemptFailure => ({
    reason: message,
    retryable: true,
    fail: (attempts) =>
      new NetworkError(`${message}${attempts > 1 ? ` (after ${attempts} attempts)` : ''}`, {
        cause: error,
        hint,
      }),
  });
  const unreachable = `${where.name} unreachable: ${where.path}`;
  if (timedOut) return failure(`${unreachable} timed out after ${where.timeoutMs / 1000}s`, TIMEOUT_HINT);
  if (error instanceof ProxyConnectionError) return failure(`${unreachable}: ${error.message}`);
  const cause = error as Error & { code?: string };
  return failure(`${unreachable} failed (${cause?.code ?? cause?.message})`);
}

/**
 * An HTTP error, worded as sdkCall words the SDK's: the body the SDK keeps (JSON as it parsed it, or
 * the text), retried when the status is transient.
 */
function refused(response: TransportResponse, where: Where): AttemptFailure {
  const { status } = response;
  const retryable = isRetryableStatus(status);
  const raw = response.body.toString('utf8');
  let text = raw;
  try {
    const parsed: unknown = JSON.parse(raw);
    if (parsed) text = JSON.stringify(parsed);
  } catch {
    // Not JSON: the text as it came.
  }
  return {
    reason: `HTTP ${status}`,
    retryable,
    retryAfterMs: retryAfterMs(response.headers),
    throttled: status === 429,
    fail: (attempts, refusedNote) => {
      const failed = apiErrorFrom({
        service: where.name,
        method: 'GET',
        url: where.url,
        status,
        statusText: '',
        text,
        contentType: 'application/json',
        requestId: response.headers['x-request-id'],
        note:
          refusedNote ??
          (attempts > 1
            ? retryable
              ? `gave up after ${attempts} attempts`
              : `on attempt ${attempts}`
            : undefined),
      });
      failed.attempts = attempts;
      return failed;
    },
  };
}

/** The models of a 2xx answer, checked: an object whose `data` is a list of models with a string id. */
function modelsOf(response: TransportResponse, where: Where): InferenceModel[] {
  const text = response.body.toString('utf8');
  let body: unknown;
  try {
    body = text === '' ? {} : JSON.parse(text);
  } catch (error) {
    throw new CliError(
      `malformed JSON in the ${where.name}'s answer (${where.path}): ${(error as Error).message}`,
    );
  }
  const notAList = (what: string) =>
    new CliError(`the ${where.name}'s answer to ${where.path} is not a model list: ${what}`);
  if (!isObject(body)) throw notAList('not a JSON object');
  // No list at all: none, as the SDK took it (an empty list has happened on the real service).
  const data = Object.hasOwn(body, 'data') ? body.data : undefined;
  if (data === undefined || data === null) return [];
  if (!Array.isArray(data)) throw notAList('its "data" is not a list');
  for (const [i, model] of data.entries()) {
    if (!isObject(model) || typeof model.id !== 'string')
      throw notAList(`model ${i + 1} is not an object with a string "id"`);
  }
  return data as InferenceModel[];
}
