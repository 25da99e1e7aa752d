// `aip jobs forget <job>… | --all | --stale`: drop remembered jobs (jobs.json) of this base URL. The
// server is never asked to change anything; --stale only asks which jobs it still knows.

import type { Context } from '../../context.js';
import { NotFoundError } from '../../errors/errors.js';
import { forgetJobs, type RememberedJob, readJobRecord, resolveJobEntry } from '../../jobs/local-record.js';
import { jobIsGone, jobRecordFile } from '../../jobs/resolve.js';
import { runForget } from '../forget-remembered.js';
import type { ForgetOptions } from './forget.js';

export async function runJobsForget(
  ctx: Context,
  refs: readonly string[],
  options: ForgetOptions,
): Promise<void> {
  const file = jobRecordFile(ctx);
  const baseUrl = ctx.serviceUrl('training');
  await runForget<RememberedJob>(
    ctx,
    {
      noun: 'job',
      read: () => readJobRecord(file).jobs,
      resolve: (ref) => {
        const { id, entry } = resolveJobEntry(readJobRecord(file), ref, baseUrl);
        if (!entry)
          throw new NotFoundError(
            `job ${id} is not remembered for ${baseUrl}: nothing to forget (aip forgets only what it remembers)`,
          );
        return entry;
      },
      isGone: (entry) => jobIsGone(ctx, entry.id),
      forget: (ids) => forgetJobs(file, ids, baseUrl),
      describe: (entry) => `${entry.id} (${entry.kind}, ${entry.model})`,
    },
    refs,
    // Named one by one: a flag renamed in forget.ts is an error here, not an option quietly dropped.
    { all: options.all, stale: options.stale },
  );
}
