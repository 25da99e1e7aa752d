// Does an interface accept a key? The inference model list answers that directly. The Training API
// has no cheap authenticated read, so it is asked for a job that cannot exist (the nil UUID): the
// key is checked before the lookup, so 401/403 means rejected and 404 means accepted.

import { listModels } from '../api/inference.js';
import { p } from '../api/url.js';
import type { Context } from '../context.js';
import { ApiError, CliError } from '../errors/errors.js';

export type KeyVerdict = 'accepted' | 'rejected' | 'error';

export interface KeyCheck {
  interface: 'training' | 'inference';
  url: string;
  key: KeyVerdict;
  detail: string | null;
  /** The failure, kept so that the command can end with its exit code. */
  error?: CliError;
}

const NIL_UUID = '00000000-0000-0000-0000-000000000000';

function failed(check: Omit<KeyCheck, 'key' | 'detail'>, error: unknown): KeyCheck {
  if (!(error instanceof CliError)) throw error;
  const rejected = error instanceof ApiError && (error.status === 401 || error.status === 403);
  return { ...check, key: rejected ? 'rejected' : 'error', detail: error.message, error };
}

export async function checkInference(ctx: Context, apiKey: string): Promise<KeyCheck> {
  const url = ctx.serviceUrl('inference');
  try {
    const res = await listModels(ctx.http('inference', { auth: 'required', apiKey }));
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

export async function checkTraining(ctx: Context, apiKey: string): Promise<KeyCheck> {
  const url = ctx.serviceUrl('training');
  try {
    const http = ctx.http('training', { auth: 'required', apiKey });
    // 404 (no such job) and 422 (checked after the key) both mean the key got through; anything else
    // takes the usual way: retried where it may pass, otherwise an error.
    await http.request({
      method: 'GET',
      path: p`/preview/training-jobs/${NIL_UUID}`,
      accept: (s) => (s >= 200 && s < 300) || s === 404 || s === 422,
    });
    return { interface: 'training', url, key: 'accepted', detail: null };
  } catch (error) {
    return failed({ interface: 'training', url }, error);
  }
}
