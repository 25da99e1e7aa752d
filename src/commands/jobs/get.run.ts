// `aip jobs get`: the job as the API returns it, plus the state derived from all its events.

import { allItems } from '../../api/pagination.js';
import type { TrainingClient } from '../../api/training.js';
import type { Context } from '../../context.js';
import { CliError, InterruptedError } from '../../errors/errors.js';
import { resolveJobRef, withJob } from '../../jobs/resolve.js';
import { applyEvent, describeState, initialState, type JobState } from '../../jobs/state.js';
import { stateJson } from '../../jobs/watch.js';
import { fullName, readModelRecord } from '../../models/local-record.js';
import { modelRecordFile } from '../../models/resolve.js';
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

function metricsText(latest: Record<string, unknown> | undefined, headlineOnly: boolean): string {
  const numeric = Object.entries(latest ?? {}).filter((e): e is [string, number] => typeof e[1] === 'number');
  const headline = numeric.filter(([k]) => HEADLINE.includes(k));
  return (headlineOnly && headline.length > 0 ? headline : numeric)
    .map(([k, v]) => `${k}=${formatNumber(v)}`)
    .join(' ');
}

/**
 * Every event of the job, applied to its state. A failure part-way is returned, not thrown: the job
 * was fetched, and what was read of its events still says something.
 */
async function readEvents(training: TrainingClient, id: string, state: JobState, maxPages: number) {
  let events = 0;
  try {
    const pages = allItems((after) => training.listEvents(id, { after, limit: 100 }), undefined, maxPages);
    for await (const event of pages) {
      applyEvent(state, event);
      events++;
    }
    return { events, trouble: undefined };
  } catch (error) {
    if (!(error instanceof CliError) || error instanceof InterruptedError) throw error;
    return { events, trouble: error };
  }
}

export async function runGet(ctx: Context, ref: string): Promise<void> {
  const job = resolveJobRef(ctx, ref);
  await withJob(ctx, job, () => showJob(ctx, job.id));
}

async function showJob(ctx: Context, id: string): Promise<void> {
  const { io } = ctx;
  const training = ctx.training();
  const job = await training.getJob(id);
  const state = initialState();
  const { events, trouble } = await readEvents(training, id, state, ctx.limits.pages);
  const status = trouble
    ? `${describeState(state)} (as of ${events} events; the rest could not be read)`
    : describeState(state);
  if (ctx.json) io.json({ ...stateJson(id, state), events, events_complete: !trouble, job });
  else if (io.quiet) io.out(state.status);
  else {
    const model = job.model_id
      ? (readModelRecord(modelRecordFile(ctx)).models.find(
          (m) => m.id === job.model_id && m.base_url === ctx.serviceUrl('training'),
        ) ?? undefined)
      : undefined;
    const metrics = metricsText(state.latest, io.isStdoutTTY);
    const fields: Array<[string, unknown]> = [
      ['id', job.id],
      ['status', status],
      ['kind', job.kind ?? ''],
      ['model', model ? `${fullName(model)} (${model.id})` : (job.model_id ?? '')],
      ['created', showTime(io, job.created_at)],
      ['metrics', metrics],
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
