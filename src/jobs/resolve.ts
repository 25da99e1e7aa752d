// Turning the <job> argument of a command into a job id (see jobs/local-record.ts), and telling a 404 for
// a job named by the start of a remembered id as what it is: a stale record (local-record/stale.ts).

import type { Context } from '../context.js';
import { recordFile } from '../local-record/file.js';
import { argumentWords, isNotFound, staleError } from '../local-record/stale.js';
import { type ResolvedJob, readJobRecord, resolveJobEntry } from './local-record.js';

export function jobRecordFile(ctx: Context): string {
  return recordFile(ctx, 'jobs');
}

export interface JobRef extends ResolvedJob {
  /** As the user gave it. */
  ref: string;
}

export function resolveJobRef(ctx: Context, ref: string): JobRef {
  const job = { ...resolveJobEntry(readJobRecord(jobRecordFile(ctx)), ref, ctx.serviceUrl('training')), ref };
  // What the command is about, for its history (kept only if it goes on to ask the platform).
  ctx.history.note({ job: job.id });
  return job;
}

export function resolveJobArg(ctx: Context, ref: string): string {
  return resolveJobRef(ctx, ref).id;
}

/**
 * A 404 for a job given by the start of a remembered id: "job ID (rl, model NAME) no longer exists on
 * URL; forget it with aip jobs forget PREFIX" (exit 3). A 404 for a job given by its whole id keeps
 * the server's message, with where the jobs this machine created are listed. Anything else is
 * returned as it is.
 */
export function staleJobError(ctx: Context, job: JobRef, error: unknown): unknown {
  if (!isNotFound(error)) return error;
  if (!job.byPrefix || !job.entry) {
    error.hint ??= `the jobs created from this machine: ${ctx.commandLine(['jobs', 'list'])}`;
    return error;
  }
  return staleError(
    `job ${job.id} (${job.entry.kind}, model ${job.entry.model})`,
    ctx.serviceUrl('training'),
    error,
    `forget it with ${ctx.commandLine(['jobs', 'forget', ...argumentWords(job.ref)])}`,
  );
}

/** Runs the requests of a command about `job`, with a 404 for a stale record told as one. */
export async function withJob<T>(ctx: Context, job: JobRef, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw staleJobError(ctx, job, error);
  }
}

/** Whether the server no longer knows the job (GET the job; 404 is gone). */
export async function jobIsGone(ctx: Context, id: string): Promise<boolean> {
  try {
    await ctx.training().getJob(id);
    return false;
  } catch (error) {
    if (isNotFound(error)) return true;
    throw error;
  }
}
