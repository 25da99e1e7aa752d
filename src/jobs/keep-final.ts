// Keeping what commands learn of finished jobs in the local record, so that `jobs list` need not ask
// again. A record that cannot be written only costs a request later: it is a warning, never a failure
// of the command that learnt it.

import type { Context } from '../context.js';
import { CliError } from '../errors/errors.js';
import { FINAL_STATES, readJobRecord, rememberFinal } from './local-record.js';
import { jobRecordFile } from './resolve.js';
import type { JobProgress } from './shape.js';

/** Keeps the end of these jobs (those finished and remembered here; the rest are passed over). */
export async function keepFinals(ctx: Context, finals: ReadonlyMap<string, JobProgress>): Promise<void> {
  const ended = new Map([...finals].filter(([, p]) => FINAL_STATES.has(p.state)));
  if (ended.size === 0) return;
  const file = jobRecordFile(ctx);
  const baseUrl = ctx.serviceUrl('training');
  try {
    // Read first: a job not remembered here is not written for (and no lock is taken).
    if (!readJobRecord(file).jobs.some((j) => j.base_url === baseUrl && ended.has(j.id))) return;
    await rememberFinal(file, baseUrl, ended);
  } catch (error) {
    if (!(error instanceof CliError)) throw error;
    ctx.io.warn(`could not keep the end of the job in ${file} (${error.message})`);
  }
}

export function keepFinal(ctx: Context, id: string, progress: JobProgress): Promise<void> {
  return keepFinals(ctx, new Map([[id, progress]]));
}
