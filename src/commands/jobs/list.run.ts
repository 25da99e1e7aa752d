import type { Context } from '../../context.js';
import { printTable } from '../../output/table.js';
import { showTime } from '../../output/time.js';
import { readJobRegistry } from '../../registry/jobs.js';
import { jobRegistryFile } from './resolve.js';

export async function runList(ctx: Context): Promise<void> {
  const { io } = ctx;
  const baseUrl = ctx.serviceUrl('training');
  // The registry keeps the order jobs were created in: newest first is that order reversed.
  const jobs = readJobRegistry(jobRegistryFile(ctx))
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
