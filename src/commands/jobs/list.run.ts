// `aip jobs list`: the jobs this machine created, newest first, each with its state (src/jobs/
// list-states.ts: finished jobs from the local record, the rest asked about), filtered by --model and
// --state, at most --limit. --json prints each job in the shape of every jobs command (shape.ts).
// --all-profiles: every job of this machine, of every profile and base URL (jobs/other-profiles.ts),
// with the profile that made it (and, in --json, its base URL).

import type { ChalkInstance } from 'chalk';
import type { Context } from '../../context.js';
import { type CliError, UsageError } from '../../errors/errors.js';
import { type CreatedRow, readCreated } from '../../history/query.js';
import { listStates } from '../../jobs/list-states.js';
import { type RememberedJob, readJobRecord } from '../../jobs/local-record.js';
import { allJobs, listAllStates, type ProfileJob } from '../../jobs/other-profiles.js';
import { jobRecordFile } from '../../jobs/resolve.js';
import { aboutEntry, type JobProgress, jobJson } from '../../jobs/shape.js';
import { type Column, printTable } from '../../output/table.js';
import { showTime } from '../../output/time.js';
import type { ListOptions } from './list.js';

/**
 * Whether the job is of the model `ref` names: its id, or its name whole (team/project/name) or by
 * its end (project/name, name). Every model of that name matches: this filters, it does not pick one.
 */
function ofModel(ref: string): (job: RememberedJob) => boolean {
  const wanted = ref.trim().toLowerCase();
  if (!wanted) throw new UsageError('--model must not be empty');
  return (job) => {
    const name = job.model.toLowerCase();
    return (
      job.model_id.toLowerCase() === wanted ||
      name === wanted ||
      (job.model !== job.model_id && name.endsWith(`/${wanted}`))
    );
  };
}

/** On a terminal, "running 3/10"; piped, the state's name (what --state takes). */
function stateText(p: JobProgress, tty: boolean): string {
  if (tty && p.state === 'running') return `running ${p.step}/${p.num_sequences ?? '?'}`;
  return p.state;
}

function stateColor(text: string, style: ChalkInstance): string {
  if (text === 'succeeded') return style.green(text);
  if (text === 'failed') return style.red(text);
  if (text.startsWith('running')) return style.yellow(text);
  if (text === 'gone' || text === 'unknown') return style.dim(text);
  return text;
}

/**
 * The jobs the history says this machine created. A history that cannot be read does not stop the
 * list: jobs.json's jobs are still listed, with a warning.
 */
async function createdJobs(ctx: Context): Promise<CreatedRow[]> {
  try {
    return await readCreated(ctx, 'job');
  } catch (error) {
    ctx.io.warn(
      `the history could not be read (${(error as Error).message}): listing the jobs in jobs.json only`,
    );
    return [];
  }
}

/** The jobs to list and their states: of this base URL, or with --all-profiles of every profile. */
async function collect(
  ctx: Context,
  options: ListOptions,
  matches: (job: RememberedJob) => boolean,
): Promise<{ listed: ProfileJob[]; trouble: CliError | undefined }> {
  const recorded = readJobRecord(jobRecordFile(ctx)).jobs;
  // Without --state the newest are the ones shown: only they are asked about.
  const newest = <T>(list: T[]) =>
    options.state === undefined && options.limit !== undefined ? list.slice(0, options.limit) : list;
  if (options.allProfiles) {
    const all = allJobs(recorded, await createdJobs(ctx)).filter((j) => matches(j.entry));
    const { jobs, trouble } = await listAllStates(ctx, newest(all.reverse()));
    return { listed: jobs, trouble };
  }
  const baseUrl = ctx.serviceUrl('training');
  // The local record keeps the order jobs were created in: newest first is that order reversed.
  const entries = recorded.filter((j) => j.base_url === baseUrl && matches(j)).reverse();
  const { jobs, trouble } = await listStates(ctx, newest(entries));
  return { listed: jobs.map((j) => ({ ...j, profile: undefined })), trouble };
}

function printJobs(ctx: Context, jobs: ProfileJob[], options: ListOptions): void {
  const { io } = ctx;
  const filtered = options.model !== undefined || options.state !== undefined;
  const columns: Array<Column<ProfileJob>> = [
    { header: 'id', value: (j) => j.entry.id },
    {
      header: 'state',
      value: (j) => stateText(j.progress, io.isStdoutTTY),
      color: (text, _j, style) => stateColor(text, style),
    },
    { header: 'kind', value: (j) => j.entry.kind },
    { header: 'model', value: (j) => j.entry.model },
    ...(options.allProfiles ? [{ header: 'profile', value: (j: ProfileJob) => j.profile ?? '-' }] : []),
    { header: 'created', value: (j) => showTime(io, j.entry.created_at) },
  ];
  printTable(io, jobs, columns, {
    empty: filtered
      ? 'No jobs created from this machine match'
      : options.allProfiles
        ? 'No jobs were created from this machine'
        : `No jobs were created from this machine against ${ctx.serviceUrl('training')}`,
  });
}

export async function runList(ctx: Context, options: ListOptions): Promise<void> {
  const { io } = ctx;
  await ctx.pageLongOutput();
  const matches = options.model === undefined ? () => true : ofModel(options.model);
  const { listed, trouble } = await collect(ctx, options, matches);
  let jobs = listed;
  if (options.state !== undefined) jobs = jobs.filter((j) => j.progress.state === options.state);
  if (options.limit !== undefined) jobs = jobs.slice(0, options.limit);

  if (ctx.json)
    io.json(
      jobs.map((j) => {
        const json = jobJson(j.entry.id, aboutEntry(j.entry), j.progress);
        return options.allProfiles
          ? { ...json, profile: j.profile ?? null, base_url: j.entry.base_url }
          : json;
      }),
    );
  else if (io.quiet) for (const job of jobs) io.out(job.entry.id);
  else printJobs(ctx, jobs, options);
  if (trouble) {
    // The list is shown; the command fails with the reason, so that a script can tell.
    const unknown = listed.filter((j) => j.progress.state === 'unknown').length;
    io.warn(`the state of ${unknown} job${unknown === 1 ? '' : 's'} could not be read: shown as unknown`);
    throw trouble;
  }
}
