// Does an interface accept the key? Asked by `aip auth login`, `auth status` and `doctor` with a
// request the published contract defines, and a verdict from what the contract says of the key:
//
// - Inference API: GET /models, the model list (api-contract.md §3.4, §3.5): 200 with the list, 401
//   for a key refused (or a wrong project), 403 for an organisation or region refused.
// - Training API: every operation but health and system-check requires the HTTPBearer scheme
//   (training-openapi.json `security`), which refuses a key (401, or 403 for none) before the
//   operation runs. No authenticated read is there for every key (each one names a model or a job),
//   so the request is a valid one that creates nothing: the checkpoints of the nil UUID, limit 1. Its
//   documented answers are 200 and 422; a server without that model may say 404, which the contract
//   does not define. All three come after the scheme has let the key through: accepted. 401 and 403:
//   rejected. Anything else (a 5xx, a proxy's answer) is no verdict: the row says what came. The
//   request is valid by the document, as everything aip sends must be (test/contract/ checks it), so
//   a request the document refuses (limit=0, answered 422 before any lookup) was not an option.

import { p } from '../api/url.js';
import type { Context } from '../context.js';
import { ApiError, CliError } from '../errors/errors.js';

export type KeyVerdict = 'accepted' | 'rejected' | 'error';

/** doctor's: each request sent once, with its own timeout; the others take the usual ones. */
export interface ProbeOptions {
  retries?: number;
  timeoutMs?: number;
}

export interface KeyProbe {
  interface: 'training' | 'inference';
  url: string;
  key: KeyVerdict;
  detail: string | null;
  error?: CliError;
}

const NIL_UUID = '00000000-0000-0000-0000-000000000000';

/** The Training API's key probe: path and query, as sent. */
export const TRAINING_KEY_PROBE = {
  path: p`/preview/models/${NIL_UUID}/checkpoints`,
  query: { limit: 1 },
} as const;

function failed(probe: Pick<KeyProbe, 'interface' | 'url'>, error: unknown): KeyProbe {
  if (!(error instanceof CliError)) throw error;
  const rejected = error instanceof ApiError && (error.status === 401 || error.status === 403);
  return { ...probe, key: rejected ? 'rejected' : 'error', detail: error.message, error };
}

export async function probeInferenceKey(
  ctx: Context,
  apiKey: string,
  options: ProbeOptions = {},
): Promise<KeyProbe> {
  const url = ctx.serviceUrl('inference');
  try {
    const res = await ctx.http('inference', { auth: 'required', apiKey }).request<{ data?: unknown }>({
      method: 'GET',
      path: '/models',
      kind: 'models',
      retries: options.retries,
      timeoutMs: options.timeoutMs,
    });
    const models = Array.isArray(res.data?.data) ? res.data.data.length : undefined;
    return {
      interface: 'inference',
      url,
      key: 'accepted',
      detail: models === undefined ? null : `${models} models`,
    };
  } catch (error) {
    return failed({ interface: 'inference', url }, error);
  }
}

export async function probeTrainingKey(
  ctx: Context,
  apiKey: string,
  options: ProbeOptions = {},
): Promise<KeyProbe> {
  const url = ctx.serviceUrl('training');
  try {
    await ctx.http('training', { auth: 'required', apiKey }).request({
      method: 'GET',
      ...TRAINING_KEY_PROBE,
      accept: (s) => s === 200 || s === 404 || s === 422,
      retries: options.retries,
      timeoutMs: options.timeoutMs,
    });
    return { interface: 'training', url, key: 'accepted', detail: null };
  } catch (error) {
    const probe = failed({ interface: 'training', url }, error);
    if (probe.key === 'error' && error instanceof ApiError)
      probe.detail = `${probe.detail}; the key could not be checked: a key let through is answered 200, 404 or 422, a key refused 401 or 403`;
    return probe;
  }
}
