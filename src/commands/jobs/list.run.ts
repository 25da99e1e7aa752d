// `aip jobs list`: the jobs this machine created, newest first, each with its state (src/jobs/
// list-states.ts: finished jobs from the local record, the rest asked about), filtered by --model and
// --state, at most --limit. --json prints each job in the shape of every jobs command (shape.ts).

import type { ChalkInstance } from 'chalk';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors/errors.js';
import { type ListedJob, listStates } from '../../jobs/list-states.js';
import { type RememberedJob, readJobRecord } from '../../jobs/local-record.js';
import { jobRecordFile } from '../../jobs/resolve.js';
import { aboutEntry, type JobProgress, jobJson } from '../../jobs/shape.js';
import { printTable } from '../../output/table.js';
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

export async function runList(ctx: Context, options: ListOptions): Promise<void> {
  const { io } = ctx;
  await ctx.pageLongOutput();
  const baseUrl = ctx.serviceUrl('training');
  const matches = options.model === undefined ? () => true : ofModel(options.model);
  // The local record keeps the order jobs were created in: newest first is that order reversed.
  let entries = readJobRecord(jobRecordFile(ctx))
    .jobs.filter((j) => j.base_url === baseUrl && matches(j))
    .reverse();
  // Without --state the newest are the ones shown: only they are asked about.
  if (options.state === undefined && options.limit !== undefined) entries = entries.slice(0, options.limit);
  const { jobs: listed, trouble } = await listStates(ctx, entries);
  let jobs: ListedJob[] = listed;
  if (options.state !== undefined) jobs = jobs.filter((j) => j.progress.state === options.state);
  if (options.limit !== undefined) jobs = jobs.slice(0, options.limit);

  if (ctx.json) io.json(jobs.map((j) => jobJson(j.entry.id, aboutEntry(j.entry), j.progress)));
  else if (io.quiet) for (const job of jobs) io.out(job.entry.id);
  else {
    const filtered = options.model !== undefined || options.state !== undefined;
    printTable(
      io,
      jobs,
      [
        { header: 'id', value: (j) => j.entry.id },
        {
          header: 'state',
          value: (j) => stateText(j.progress, io.isStdoutTTY),
          color: (text, _j, style) => stateColor(text, style),
        },
        { header: 'kind', value: (j) => j.entry.kind },
        { header: 'model', value: (j) => j.entry.model },
        { header: 'created', value: (j) => showTime(io, j.entry.created_at) },
      ],
      {
        empty: filtered
          ? 'No jobs created from this machine match'
          : `No jobs were created from this machine against ${baseUrl}`,
      },
    );
  }
  if (trouble) {
    // The list is shown; the command fails with the reason, so that a script can tell.
    const unknown = listed.filter((j) => j.progress.state === 'unknown').length;
    io.warn(`the state of ${unknown} job${unknown === 1 ? '' : 's'} could not be read: shown as unknown`);
    throw trouble;
  }
}
