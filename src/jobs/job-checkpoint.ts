// Which checkpoint a job made, for the `checkpoint` step output of a wait and the checkpoint a train rl
// iteration ends on. The platform's checkpoints (api-contract.md §2.5, CheckpointResponse: id, step,
// metrics) do not say which job made them, and a model's steps are counted across its jobs (a job's
// gradient step k is the model's step "latest before the job + k"). The platform's SDK takes the
// model's latest checkpoint after a job as the job's (§2.9, 5.), which names an earlier job's
// checkpoint when this one made none (it failed at its first step, or had nothing to train on), and a
// later job's when another job of the model has trained since (a wait on a job that ended long ago, or
// two jobs at once). So, from the job's own events and the model's newest checkpoints:
//
// - a job that made no gradient step made no checkpoint, whatever the model has;
// - checkpoints that name their job (`training_job_id` or `job_id`: not in the contract, but the way a
//   platform would say it): the newest of this job's, or none;
// - otherwise the newest checkpoint whose metrics are those of the job's last gradient step, on every
//   metric both have (the emulator records a step's reward and loss on its checkpoint);
// - a platform that keeps no metric on checkpoints leaves nothing to compare: the newest checkpoint, as
//   the SDK takes it, when it can be the job's last (a trained step, at least as high as the job's
//   steps). Nothing better can be known there.
//
// Anything else is none: an empty output is safe, another job's checkpoint is not.

import type { Checkpoint } from '../api/types.js';
import type { Context } from '../context.js';
import { CliError } from '../errors/errors.js';
import { isObject } from '../lib/json.js';
import type { JobProgress } from './shape.js';

/** The job's checkpoint's step, or why there is none to name (`unknown`: the server could not say). */
export type JobCheckpoint = { step: number } | { step: undefined; why: string; unknown?: true };

/** The newest checkpoints looked at: the API's largest page. */
const NEWEST = 100;

/** The job a checkpoint names, when the platform says. */
function madeBy(checkpoint: Checkpoint): string | undefined {
  const fields = checkpoint as unknown as Record<string, unknown>;
  const id = fields.training_job_id ?? fields.job_id;
  return typeof id === 'string' && id ? id : undefined;
}

/** Equal as numbers a server stored may differ: in the last digits of a float32, at most. */
function same(a: number, b: number): boolean {
  return Math.abs(a - b) <= 1e-6 * Math.max(1, Math.abs(a), Math.abs(b));
}

/** The metrics both hold, and whether they agree on every one (undefined: none in common). */
function agrees(checkpoint: Checkpoint, last: Record<string, number>): boolean | undefined {
  const metrics = isObject(checkpoint.metrics) ? checkpoint.metrics : {};
  const shared = Object.keys(last).filter((k) => typeof metrics[k] === 'number');
  if (shared.length === 0) return undefined;
  return shared.every((k) => same(metrics[k] as number, last[k]!));
}

/** The decision, from the model's newest checkpoints (any order) and the job's progress. */
export function attributeCheckpoint(
  checkpoints: readonly Checkpoint[],
  jobId: string,
  progress: Pick<JobProgress, 'step' | 'latest_metrics'>,
): JobCheckpoint {
  if (progress.step === 0) return { step: undefined, why: 'none: the job made no training step' };
  const trained = checkpoints
    .filter((c) => isObject(c) && Number.isInteger(c.step) && c.step > 0)
    .sort((a, b) => b.step - a.step);
  if (checkpoints.some((c) => isObject(c) && madeBy(c) !== undefined)) {
    const mine = trained.find((c) => madeBy(c) === jobId);
    return mine
      ? { step: mine.step }
      : { step: undefined, why: "none: no checkpoint of the model's newest is this job's" };
  }
  const last = progress.latest_metrics ?? {};
  const verdicts = trained.map((c) => agrees(c, last));
  if (verdicts.every((v) => v === undefined)) {
    const newest = trained[0];
    return newest && newest.step >= progress.step
      ? { step: newest.step }
      : { step: undefined, why: "none: the model's checkpoints do not hold this job's steps" };
  }
  const match = trained.find((_, i) => verdicts[i] === true);
  return match
    ? { step: match.step }
    : { step: undefined, why: "none: no checkpoint of the model's newest has this job's last metrics" };
}

/**
 * The checkpoint `jobId` made, asked of the server only when the job made a step. A failed request
 * is none, with why: the caller says so, and its own result stands.
 */
export async function jobCheckpoint(
  ctx: Context,
  modelId: string,
  jobId: string,
  progress: Pick<JobProgress, 'step' | 'latest_metrics'>,
): Promise<JobCheckpoint> {
  if (progress.step === 0) return attributeCheckpoint([], jobId, progress);
  try {
    const page = await ctx.training().listCheckpoints(modelId, { limit: NEWEST, order: 'desc' });
    return attributeCheckpoint(Array.isArray(page.data) ? page.data : [], jobId, progress);
  } catch (error) {
    if (!(error instanceof CliError)) throw error;
    return { step: undefined, why: `unknown: ${error.message}`, unknown: true };
  }
}
