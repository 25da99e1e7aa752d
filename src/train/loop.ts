// The RL loop of `aip train rl`: for each iteration, rollouts on the model's latest checkpoint →
// (--log-split) the groups logged → an RL job from them → its wait → the next. Each step is recorded in
// run.json as it happens (run-dir.ts), and each is skipped on --resume when recorded done: sampling
// carries on in the iteration's groups file, a job created is waited for (never created again), a
// create whose answer was lost stops the run (create-job.ts), and a job that failed is created again
// from the same groups (its id kept under failed_jobs).
//
// Ctrl-C (or SIGTERM) is listened for over the whole loop: it stops sampling and waiting at once, and
// otherwise the request in flight (a create, above all) is let finish and recorded before the run
// stops; everything stays, and the message gives the command that resumes.

import { addSpent, spentSince } from '../budget/start.js';
import type { Context } from '../context.js';
import { CliError, InterruptedError, JobFailedError } from '../errors/errors.js';
import { jobCheckpoint } from '../jobs/job-checkpoint.js';
import type { JobProgress } from '../jobs/shape.js';
import { watchJob } from '../jobs/watch.js';
import { seedFrom } from '../lib/seeded-random.js';
import { type ModelRef, withModel } from '../models/resolve.js';
import { plural, trajectories as trajectoryCount } from '../output/plural.js';
import type { Task } from '../rollouts/tasks.js';
import { readTrajectoryGroups } from '../validate/trajectory-file.js';
import { createIterationJob, uncertainCreate } from './create-job.js';
import { type SamplingSetup, sampleIteration, summarizeGroups } from './iteration-rollouts.js';
import { type IterationRecord, OWN_FILE, type RunDir } from './run-dir.js';

export interface LoopSetup {
  model: ModelRef;
  tasks: readonly Task[];
  sampling: SamplingSetup;
  wait: { intervalSeconds?: number; stall?: { text: string; ms: number } };
  /** The command that resumes the run, for every message that stops it. */
  resume: string;
}

/**
 * What the loop samples with and waits with: today's functions by default; the unit tests
 * (test/train/loop.test.ts) hand in fakes, and a fake training client through the Context.
 */
export interface LoopDeps {
  sampleIteration: typeof sampleIteration;
  watchJob: typeof watchJob;
}

const LOOP_DEPS: LoopDeps = { sampleIteration, watchJob };

/** An iteration's seed: the run's and the iteration's number, so a resumed run samples the same. */
export function iterationSeed(runSeed: number, iteration: number): number {
  return seedFrom(JSON.stringify(['train rl', runSeed, iteration])) & 0x7fffffff;
}

async function latestStep(ctx: Context, model: ModelRef): Promise<number> {
  const page = await withModel(ctx, model, () =>
    ctx.training().listCheckpoints(model.id, { limit: 1, order: 'desc' }),
  );
  const latest = page.data[0];
  if (!latest) throw new CliError(`${model.label} has no checkpoint to sample`);
  return latest.step;
}

function stopped(ctx: Context, run: RunDir, iteration: IterationRecord, setup: LoopSetup): never {
  ctx.io.err(
    `Stopped at iteration ${iteration.iteration} of ${run.state.steps}; everything is kept in ${run.dir}. Resume with: ${setup.resume}`,
  );
  throw new InterruptedError(undefined, ctx.stopSignal ?? 'SIGINT');
}

function beginIteration(ctx: Context, run: RunDir, n: number, step: number): IterationRecord {
  const iteration: IterationRecord = {
    iteration: n,
    seed: iterationSeed(run.state.seed, n),
    checkpoint_step: step,
    groups_file: `iteration-${n}/groups.jsonl`,
  };
  run.state.iterations.push(iteration);
  run.save();
  ctx.io.info(`Iteration ${n} of ${run.state.steps}: checkpoint step ${step}`);
  return iteration;
}

async function logGroups(
  ctx: Context,
  run: RunDir,
  iteration: IterationRecord,
  model: ModelRef,
  split: string,
  readGroups: () => Promise<unknown[]>,
) {
  if (iteration.log?.state === 'sending') {
    // Sent by a run that stopped before the answer: it may be logged; logging again could double it.
    ctx.io.warn(
      `iteration ${iteration.iteration}'s groups may have been logged to split "${split}" already (the run stopped before the answer): not logged again`,
    );
    iteration.log.state = 'unknown';
    run.save();
    return;
  }
  if (iteration.log) return;
  const groups = await readGroups();
  iteration.log = { split, state: 'sending' };
  run.save();
  try {
    await withModel(ctx, model, () =>
      ctx.training().logTrajectories(model.id, { split, trajectory_groups: groups }),
    );
  } catch (error) {
    // Refused for certain (a 4xx, or never sent): not logged, so a resume logs it. Only an answer
    // that may have been lost leaves the mark, as a create does (create-job.ts).
    if (error instanceof CliError && !error.uncertain) {
      delete iteration.log;
      run.save();
    }
    throw error;
  }
  iteration.log.state = 'logged';
  run.save();
  ctx.io.info(
    `Iteration ${iteration.iteration}: logged ${plural(groups.length, 'group')} to split "${split}"`,
  );
}

/**
 * Follows the iteration's job to its end; records it, and the checkpoint it made (job-checkpoint.ts:
 * none when it made no step, never an earlier job's). A failed job ends the run (exit 5).
 */
async function waitForJob(
  ctx: Context,
  run: RunDir,
  iteration: IterationRecord,
  setup: LoopSetup,
  deps: LoopDeps,
) {
  const id = iteration.job_id!;
  let progress: JobProgress;
  try {
    progress = await deps.watchJob(
      ctx,
      { id, entry: undefined },
      { ...setup.wait, within: { resume: setup.resume } },
    );
  } catch (error) {
    if (error instanceof JobFailedError) {
      iteration.job_state = 'failed';
      iteration.job_error = error.message;
      run.save();
      error.hint = `the run is kept in ${run.dir}; ${setup.resume} creates the job again from the same groups`;
    }
    throw error;
  }
  iteration.job_state = 'succeeded';
  const made = await jobCheckpoint(ctx, setup.model.id, id, progress);
  iteration.new_checkpoint_step = made.step;
  run.save();
  ctx.io.info(
    `Iteration ${iteration.iteration}: job ${id} succeeded; ${made.step === undefined ? `its checkpoint: ${made.why}` : `its checkpoint step ${made.step}`}`,
  );
}

async function runIteration(
  ctx: Context,
  run: RunDir,
  n: number,
  setup: LoopSetup,
  signal: AbortSignal,
  deps: LoopDeps,
): Promise<void> {
  const { io } = ctx;
  const recorded = run.state.iterations[n - 1];
  if (recorded?.job_state === 'succeeded') return;
  if (recorded?.job_state === 'failed') {
    io.info(`Iteration ${n}: job ${recorded.job_id} failed; creating it again from the same groups`);
    recorded.failed_jobs = [
      ...(recorded.failed_jobs ?? []),
      { job_id: recorded.job_id!, error: recorded.job_error },
    ];
    for (const key of ['job_id', 'job_state', 'job_error', 'create_sent_at'] as const) delete recorded[key];
    run.save();
  }
  if (recorded?.create_sent_at && !recorded.job_id) throw uncertainCreate(ctx, run, recorded);
  const iteration = recorded ?? beginIteration(ctx, run, n, await latestStep(ctx, setup.model));
  if (signal.aborted) stopped(ctx, run, iteration, setup);
  const label = `Iteration ${n}`;
  // The iteration's groups, read (and checked) once, for its summary, its log and its job.
  let groups: unknown[] | undefined;
  const readGroups = async () => {
    groups ??= (await readTrajectoryGroups(ctx, run.path(iteration.groups_file), OWN_FILE)).groups;
    return groups;
  };

  if (!iteration.rollouts) {
    const model = `wandb-artifact:///${run.state.model.name}:step${iteration.checkpoint_step}`;
    const file = run.path(iteration.groups_file);
    const before = ctx.budget ? { ...ctx.budget.spent } : undefined;
    let done: boolean;
    try {
      done = await deps.sampleIteration(
        ctx,
        iteration,
        { file, model, label },
        setup.tasks,
        setup.sampling,
        signal,
      );
    } finally {
      // Kept however the sampling ended: a budget reached, a failure, Ctrl-C.
      if (before && ctx.budget) {
        iteration.usage = addSpent(iteration.usage, spentSince(before, ctx.budget.spent));
        run.save();
      }
    }
    if (!done) stopped(ctx, run, iteration, setup);
    iteration.rollouts = summarizeGroups(await readGroups());
    run.save();
    const { mean_reward, trajectories, failed } = iteration.rollouts;
    io.info(
      `${label}: mean reward ${mean_reward === null ? '–' : mean_reward.toFixed(3)} over ${trajectoryCount(trajectories)}${failed ? ` (${failed} failed)` : ''}`,
    );
  }
  if (iteration.rollouts.trajectories === 0)
    throw new CliError(
      `${label}: every trajectory failed, so there is nothing to train on (the groups' exceptions say why)`,
      {
        hint: `the groups are in ${run.path(iteration.groups_file)}`,
      },
    );
  if (signal.aborted) stopped(ctx, run, iteration, setup);

  if (run.state.log_split !== null)
    await logGroups(ctx, run, iteration, setup.model, run.state.log_split, readGroups);
  if (signal.aborted) stopped(ctx, run, iteration, setup);

  if (!iteration.job_id) {
    const id = await createIterationJob(ctx, run, iteration, setup.model, await readGroups());
    io.info(`${label}: created RL job ${id}; following it (Ctrl-C stops the run, not the job)`);
  }
  if (signal.aborted) stopped(ctx, run, iteration, setup);
  await waitForJob(ctx, run, iteration, setup, deps);
}

export async function trainLoop(
  ctx: Context,
  run: RunDir,
  setup: LoopSetup,
  deps: LoopDeps = LOOP_DEPS,
): Promise<void> {
  const { signal, release } = ctx.interruptible();
  try {
    for (let n = 1; n <= run.state.steps; n++) await runIteration(ctx, run, n, setup, signal, deps);
  } finally {
    release();
  }
}
