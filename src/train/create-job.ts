// An iteration's RL job, created at most once. run.json records that the create is about to be sent
// before it is; the job's id after. A create whose answer was lost (CliError.uncertain), or a run
// killed while it was in flight, leaves the mark without an id: the job may exist, the platform cannot
// list jobs, and so a --resume stops there and says what to look at instead of sending it again. A
// create the server refused (or that never left) is certain not to exist: the mark is taken back.

import { rlJobRequest } from '../api/training.js';
import type { CreateRlJob, JobResponse } from '../api/types.js';
import type { Context } from '../context.js';
import { CliError } from '../errors/errors.js';
import { type RememberedJob, rememberJob } from '../jobs/local-record.js';
import { jobRecordFile } from '../jobs/resolve.js';
import { isObject } from '../lib/json.js';
import { type ModelRef, withModel } from '../models/resolve.js';
import { isoTime } from '../output/time.js';
import type { IterationRecord, RunDir } from './run-dir.js';

/** The refusal of a --resume that finds a create sent and no job id. */
export function uncertainCreate(ctx: Context, run: RunDir, iteration: IterationRecord): CliError {
  const error = new CliError(
    `iteration ${iteration.iteration}'s job create was sent at ${iteration.create_sent_at} and its answer never came: whether the job exists is unknown, and it is not sent again`,
  );
  error.hint = `look for the checkpoints a job that ran leaves with ${ctx.commandLine(['checkpoints', 'list', run.state.model.id])}; then, in ${run.path('run.json')}, give iteration ${iteration.iteration} the "job_id" of the job that ran, or remove its "create_sent_at" if none did, and resume`;
  return error;
}

export async function createIterationJob(
  ctx: Context,
  run: RunDir,
  iteration: IterationRecord,
  model: ModelRef,
  /** The iteration's groups, as the loop read and checked them. */
  groups: unknown[],
): Promise<string> {
  const body: CreateRlJob = { model_id: model.id, trajectory_groups: groups };
  const experimental = run.state.experimental_config;
  if (Object.keys(experimental).length > 0) body.experimental_config = experimental;
  const training = ctx.training();
  iteration.create_sent_at = new Date().toISOString();
  run.save();
  let job: JobResponse;
  try {
    job = await withModel(ctx, model, () => training.send<JobResponse>(rlJobRequest(body)));
  } catch (error) {
    if (error instanceof CliError && error.uncertain) {
      error.hint = uncertainCreate(ctx, run, iteration).hint;
      throw error;
    }
    // The server answered (a refusal), or the request never left: there is no job.
    if (error instanceof CliError) {
      delete iteration.create_sent_at;
      run.save();
    }
    throw error;
  }
  if (!isObject(job) || typeof job.id !== 'string' || !job.id)
    throw new CliError(
      `the server answered iteration ${iteration.iteration}'s create without a job id: the job may exist, unnamed`,
      { hint: uncertainCreate(ctx, run, iteration).hint },
    );
  iteration.job_id = job.id;
  run.save();
  // As jobs create does: jobs list and jobs wait know it by the start of its id.
  const entry: RememberedJob = {
    id: job.id,
    kind: 'rl',
    model_id: model.id,
    model: run.state.model.name,
    base_url: ctx.serviceUrl('training'),
    created_at: isoTime(job.created_at) ?? new Date().toISOString(),
  };
  ctx.history.created({
    what: 'job',
    id: job.id,
    name: entry.model,
    kind: 'rl',
    base_url: entry.base_url,
    profile: ctx.settings.profile,
  });
  try {
    await rememberJob(jobRecordFile(ctx), entry);
  } catch (error) {
    ctx.io.warn(`job ${job.id} was created, but could not be remembered (${(error as Error).message})`);
  }
  return job.id;
}
