// The state of each remembered job, for `jobs list`: a finished job's from the local record (no
// request), an unfinished one's from its events, a few jobs at a time; what finished since is kept.
//
// A job is `gone` when the server answers 404 for it (kept: ids are never reused), or when the model
// it was created for, remembered here by name, is no longer in the record of models (deleted with
// `aip models delete`, or forgotten): nothing is asked about such a job. When a job's events cannot be
// read for another reason, it is `unknown`, the jobs not yet asked about are too (a server that is down
// is not asked a hundred times over), and the reason is returned for the command to fail with.

import type { Context } from '../context.js';
import { CliError } from '../errors/errors.js';
import { isNotFound } from '../local-record/stale.js';
import { readModelRecord } from '../models/local-record.js';
import { modelRecordFile } from '../models/resolve.js';
import { keepFinals } from './keep-final.js';
import { finalOf, type RememberedJob } from './local-record.js';
import { readJobState } from './read-state.js';
import { type JobProgress, JUST_CREATED, progressOf } from './shape.js';

/** Jobs asked about at once: enough to hide latency, few enough not to look like a flood. */
const CONCURRENCY = 4;

export interface ListedJob {
  entry: RememberedJob;
  progress: JobProgress;
}

export interface ListedStates {
  jobs: ListedJob[];
  /** Why some jobs are `unknown`; undefined when every state is known. */
  trouble: CliError | undefined;
}

const GONE: JobProgress = { ...JUST_CREATED, state: 'gone' };
const UNKNOWN: JobProgress = { ...JUST_CREATED, state: 'unknown' };

export async function listStates(ctx: Context, entries: readonly RememberedJob[]): Promise<ListedStates> {
  const baseUrl = ctx.serviceUrl('training');
  const models = new Set(
    readModelRecord(modelRecordFile(ctx))
      .models.filter((m) => m.base_url === baseUrl)
      .map((m) => m.id),
  );
  const jobs: ListedJob[] = entries.map((entry) => {
    const final = finalOf(entry);
    // Remembered by name (not only by id) and no longer known by it: its model is gone.
    const modelGone = entry.model !== entry.model_id && !models.has(entry.model_id);
    if (modelGone) return { entry, progress: { ...(final ?? JUST_CREATED), state: 'gone' } };
    return { entry, progress: final ?? UNKNOWN };
  });
  const pending = jobs.filter((j) => !finalOf(j.entry) && j.progress.state === 'unknown');
  const finals = new Map<string, JobProgress>();
  let trouble: CliError | undefined;

  const ask = async (job: ListedJob): Promise<void> => {
    if (trouble) return;
    try {
      const read = await readJobState(ctx.training(), job.entry.id, ctx.limits.pages);
      if (read.trouble) throw read.trouble;
      job.progress = progressOf(read.state);
    } catch (error) {
      if (!(error instanceof CliError)) throw error;
      if (!isNotFound(error)) {
        trouble ??= error;
        return;
      }
      job.progress = GONE;
    }
    finals.set(job.entry.id, job.progress);
  };
  let next = 0;
  const worker = async () => {
    while (next < pending.length) await ask(pending[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, pending.length) }, worker));
  await keepFinals(ctx, finals);
  return { jobs, trouble };
}
