import type { Context } from '../../context.js';
import { readJobRecord } from '../../jobs/local-record.js';
import { jobRecordFile } from '../../jobs/resolve.js';
import { printTable } from '../../output/table.js';
import { showTime } from '../../output/time.js';

export async function runList(ctx: Context): Promise<void> {
  const { io } = ctx;
  const baseUrl = ctx.serviceUrl('training');
  // The local record keeps the order jobs were created in: newest first is that order reversed.
  const jobs = readJobRecord(jobRecordFile(ctx))
    .jobs.filter((j) => j.base_url === baseUrl)
    .reverse();
  if (ctx.json) return io.json(jobs.map(({ base_url: _b, ...job }) => job));
  if (io.quiet) {
    for (const job of jobs) io.out(job.id);
    return;
  }
  printTable(
    io,
    jobs,
    [
      { header: 'id', value: (j) => j.id },
      { header: 'kind', value: (j) => j.kind },
      { header: 'model', value: (j) => j.model },
      { header: 'created', value: (j) => showTime(io, j.created_at) },
    ],
    { empty: `No jobs were created from this machine against ${baseUrl}` },
  );
}
