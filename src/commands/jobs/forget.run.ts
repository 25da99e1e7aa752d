// `aip jobs forget <job>… | --all | --stale`: drop remembered jobs (jobs.json) of this base URL. The
// server is never asked to change anything; --stale only asks which jobs it still knows.

import type { Context } from '../../context.js';
import { NotFoundError } from '../../errors.js';
import { runForget } from '../../registry/forget.js';
import { forgetJobs, type RegisteredJob, readJobRegistry, resolveJobEntry } from '../../registry/jobs.js';
import type { ForgetOptions } from './forget.js';
import { jobIsGone, jobRegistryFile } from './resolve.js';

export async function runJobsForget(
  ctx: Context,
  refs: readonly string[],
  options: ForgetOptions,
): Promise<void> {
  const file = jobRegistryFile(ctx);
  const baseUrl = ctx.serviceUrl('training');
  await runForget<RegisteredJob>(
    ctx,
    {
      noun: 'job',
      read: () => readJobRegistry(file).jobs,
      resolve: (ref) => {
        const { id, entry } = resolveJobEntry(readJobRegistry(file), ref, baseUrl);
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
