// `aip jobs get`: the job (one shape for every jobs command, src/jobs/shape.ts) with its state derived
// from all its events; a finished job's end is kept in the local record, for `jobs list`.

import type { Context } from '../../context.js';
import { keepFinal } from '../../jobs/keep-final.js';
import { readJobState } from '../../jobs/read-state.js';
import { type JobRef, resolveJobRef, withJob } from '../../jobs/resolve.js';
import { aboutJob, jobJson, progressOf } from '../../jobs/shape.js';
import { describeState } from '../../jobs/state.js';
import { formatNumber } from '../../output/numbers.js';
import { sparkline } from '../../output/plot.js';
import { printFields } from '../../output/table.js';
import { showTime } from '../../output/time.js';

/** What a person reads first; scripts get every metric (TSV, or --json). */
const HEADLINE = [
  'reward',
  'reward_std_dev',
  'loss',
  'grad_norm',
  'learning_rate',
  'entropy',
  'kl_div',
  'tokens_per_second',
];

function metricsText(latest: Record<string, number> | null, headlineOnly: boolean): string {
  const numeric = Object.entries(latest ?? {});
  const headline = numeric.filter(([k]) => HEADLINE.includes(k));
  return (headlineOnly && headline.length > 0 ? headline : numeric)
    .map(([k, v]) => `${k}=${formatNumber(v)}`)
    .join(' ');
}

export async function runGet(ctx: Context, ref: string): Promise<void> {
  const job = resolveJobRef(ctx, ref);
  await withJob(ctx, job, () => showJob(ctx, job));
}

async function showJob(ctx: Context, ref: JobRef): Promise<void> {
  const { io } = ctx;
  const training = ctx.training();
  const server = await training.getJob(ref.id);
  const { state, events, trouble } = await readJobState(training, ref.id, ctx.limits.pages);
  const progress = progressOf(state);
  const about = aboutJob(ctx, ref.entry, server);
  if (!trouble) await keepFinal(ctx, ref.id, progress);
  if (ctx.json) io.json(jobJson(ref.id, about, progress));
  else if (io.quiet) io.out(state.status);
  else {
    const status = trouble
      ? `${describeState(state)} (as of ${events} events; the rest could not be read)`
      : describeState(state);
    const fields: Array<[string, unknown]> = [
      ['id', ref.id],
      ['state', status],
      ['kind', about.kind ?? ''],
      [
        'model',
        about.model && about.model !== about.model_id
          ? `${about.model} (${about.model_id})`
          : (about.model ?? ''),
      ],
      ['created', showTime(io, about.created_at)],
      ['metrics', metricsText(progress.latest_metrics, io.isStdoutTTY)],
    ];
    // Where a person looks: the reward over the steps so far.
    if (io.isStdoutTTY && state.rewards.length > 1)
      fields.push(['reward', `${sparkline(state.rewards)} ${formatNumber(state.rewards.at(-1)!)}`]);
    printFields(io, fields);
  }
  if (trouble) {
    // The job is shown; the command still fails, with the reason, so that a script can tell.
    io.warn(`the job's events could not all be read: its state is as of the first ${events}`);
    throw trouble;
  }
}
