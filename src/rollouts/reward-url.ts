// --reward-url: a reward service the user runs elsewhere (Kubernetes, Ray Serve, any HTTP server)
// scores each trajectory. The protocol is --reward-server's, over HTTP: one POST per trajectory, its
// body {"id": n, "trajectory": <what --reward-cmd reads on stdin>}, answered by one object, {"id": n,
// "reward": <number>, "metrics"?: {…}} or {"id": n, "error": "…"}. (The protocol's batch form, an array
// of requests answered by an array, is not sent: one trajectory a request, the run's scoring limit
// bounding how many are in flight.)
//
// Requests go through aip's one client and retry loop (api/http.ts, api/retrying.ts): the transport's
// key guard, proxies, --debug's log and the answer limits apply, and a request is sent again after a
// 408, 429, 5xx or a lost connection, up to --max-retries, as a reward asked twice is the same reward.
// --reward-timeout bounds each trajectory, its retries and pauses included. The service's key comes
// from AIP_REWARD_KEY, sent as a bearer token, masked in everything printed.
//
// What fails only the trajectory (with the reason; the run goes on, as with --reward-cmd): the
// service's own {"error"}, an answer that is not one (not JSON, another id, no finite reward, too
// large), the timeout, and an HTTP error about this request (a 500 after retries: the reward raised on
// it; a 400, 413 or 422: the service refused it). What stops the run (the groups written stay, --resume
// carries on): a service that cannot be reached or says it is unavailable after retries (connection
// errors, 408, 429, 502, 503, 504…), and one that refuses aip itself (401, 403: the key; 404, 405:
// the URL). Every trajectory would fail the same way, and sampling on would spend samples for nothing.

import { HttpClient, type HttpResponse } from '../api/http.js';
import type { Context } from '../context.js';
import { ApiError, CliError, NetworkError, UsageError } from '../errors/errors.js';
import { isObject } from '../lib/json.js';
import { USER_AGENT } from '../lib/version.js';
import { assertKeySendable, isLoopbackHost, redactUrlSecrets, rememberSecret } from '../output/secrets.js';
import { oneLine } from '../output/text.js';
import { DEFAULT_REWARD_TIMEOUT_S } from './defaults.js';
import { type RewardResult, unwritableScore } from './reward-command.js';
import { rewardInput } from './reward-input.js';
import type { Scorer } from './run.js';

/** Where the service's key is read from. */
export const REWARD_KEY_ENV = 'AIP_REWARD_KEY';

/** Statuses that say nothing about the trajectory but that aip itself is refused: the run stops. */
const REFUSES_AIP = new Set([401, 403, 404, 405, 407]);

/**
 * The attempt's own timeout is a little past the trajectory's deadline, which always fires first: a
 * hung service is reported as the trajectory's timeout, never retried into a deadline already passed.
 */
const ATTEMPT_MARGIN_MS = 1000;

/** The URL, checked before anything is sent: http or https, and a key only where it may go. */
function serviceUrl(ctx: Context, given: string): { url: URL; key: string | undefined } {
  const shown = JSON.stringify(redactUrlSecrets(given));
  let url: URL;
  try {
    url = new URL(given);
  } catch {
    throw new UsageError(`--reward-url ${shown} is not a URL: give http://host[:port]/path or https://…`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new UsageError(
      `--reward-url ${shown} is a ${url.protocol.replace(':', '')} URL: the reward service is reached over http:// or https://`,
    );
  if (url.username || url.password)
    throw new UsageError(
      `--reward-url ${shown} holds credentials: give the service's key in ${REWARD_KEY_ENV} instead`,
    );
  const key = ctx.env[REWARD_KEY_ENV] || undefined;
  if (key !== undefined) {
    rememberSecret(key);
    assertKeySendable(key, `env ${REWARD_KEY_ENV}`);
    if (url.protocol === 'http:' && !isLoopbackHost(url.hostname))
      throw new UsageError(
        `refusing to send ${REWARD_KEY_ENV} over plain http to ${url.host}: give an https:// --reward-url (plain http is allowed only for loopback addresses), or unset ${REWARD_KEY_ENV} for a service that takes no key`,
      );
  }
  return { url, key };
}

/** A value of the answer, short, for a reason. */
const shown = (value: unknown) => oneLine(JSON.stringify(value) ?? String(value), 200);

/** The reward in the service's answer to request `id`, or why there is none. */
export function readAnswer(data: unknown, id: number): RewardResult {
  if (data === undefined)
    return { ok: false, reason: 'the service answered nothing (expected {"id", "reward"})' };
  if (!isObject(data))
    return {
      ok: false,
      reason: `the service answered ${shown(data)}, not a JSON object {"id", "reward"}`,
    };
  if (data.id !== id)
    return {
      ok: false,
      reason: `the service answered for id ${shown(data.id)}, not for this request's id ${id}`,
    };
  if (data.error !== undefined)
    return {
      ok: false,
      reason: `the service said: ${typeof data.error === 'string' ? oneLine(data.error, 200) : shown(data.error)}`,
    };
  if (typeof data.reward !== 'number')
    return { ok: false, reason: `the service answered ${shown(data)}: no numeric "reward"` };
  const metrics = data.metrics;
  if (
    metrics !== undefined &&
    (!isObject(metrics) ||
      Object.values(metrics).some((m) => typeof m !== 'number' && typeof m !== 'boolean'))
  )
    return { ok: false, reason: '"metrics" must be an object of numbers or booleans' };
  // -0 is written as 0, as --reward-cmd's are.
  const scored =
    metrics === undefined
      ? { reward: data.reward + 0 }
      : { reward: data.reward + 0, metrics: metrics as Record<string, number | boolean> };
  // A number JSON cannot hold (1e999) reads as Infinity: no reward.
  const unwritable = unwritableScore(scored);
  if (unwritable) return { ok: false, reason: `the service answered ${unwritable}` };
  return { ok: true, scored };
}

/** A failed request: the trajectory's reason, or (thrown) the error that stops the run. */
function failure(error: unknown): RewardResult {
  if (error instanceof ApiError) {
    // A 2xx whose body is not JSON (api/http.ts): an unreadable answer, about this trajectory.
    if (error.status >= 200 && error.status < 300) return { ok: false, reason: error.message };
    const aboutTheRequest =
      error.status === 500 ||
      (error.status >= 400 && error.status < 500 && error.status !== 408 && error.status !== 429);
    if (aboutTheRequest && !REFUSES_AIP.has(error.status))
      return { ok: false, reason: `the reward service failed it: ${error.message}` };
    const hint =
      error.status === 401 || error.status === 403
        ? `the reward service refused its key: set ${REWARD_KEY_ENV} to the key it takes`
        : error.status === 404 || error.status === 405
          ? 'check --reward-url: the service must answer POST at that URL'
          : 'a reward service that is unavailable would fail every trajectory, so the run stopped';
    const stopped = new ApiError(`reward service: ${error.message}`, error.status, error.requestId, {
      hint,
    });
    stopped.attempts = error.attempts;
    throw stopped;
  }
  if (error instanceof NetworkError) {
    error.hint = 'a reward service that cannot be reached would fail every trajectory, so the run stopped';
    throw error;
  }
  // An answer past its size limit: about this answer only (its message says how to raise the limit).
  if (error instanceof CliError && error.name === 'LimitError')
    return { ok: false, reason: `${error.message} (${error.hint})` };
  // Our own refusals (a key bound for a proxy), and anything unforeseen.
  throw error;
}

export function rewardUrlScorer(ctx: Context, given: string, options: { rewardTimeout?: number }): Scorer {
  const { url, key } = serviceUrl(ctx, given);
  const timeoutMs = (options.rewardTimeout ?? DEFAULT_REWARD_TIMEOUT_S) * 1000;
  const client = new HttpClient({
    service: 'reward service',
    baseUrl: url.origin,
    apiKey: key,
    transport: ctx.transport,
    ...ctx.retryPolicy,
    userAgent: USER_AGENT,
    limits: ctx.limits,
  });
  let lastId = 0;
  return async (task, trajectory, reply, stop) => {
    if (stop.aborted) return { ok: false, reason: 'stopped' };
    const id = ++lastId;
    const deadline = AbortSignal.timeout(timeoutMs);
    let answer: HttpResponse<unknown>;
    try {
      answer = await client.request<unknown>({
        method: 'POST',
        // The URL as given, its path and query whole (joined to a base, a path would gain a slash).
        path: `${url.pathname}${url.search}`,
        body: { id, trajectory: rewardInput(task, trajectory, reply) },
        idempotent: true,
        signal: AbortSignal.any([stop, deadline]),
        timeoutMs: timeoutMs + ATTEMPT_MARGIN_MS,
      });
    } catch (error) {
      if (stop.aborted) return { ok: false, reason: 'stopped' };
      if (deadline.aborted) return { ok: false, reason: `timed out after ${timeoutMs / 1000}s` };
      return failure(error);
    }
    return readAnswer(answer.data, id);
  };
}
