import type { Context } from '../../context.js';
import { resolveJobRef, withJob } from '../../jobs/resolve.js';
import { watchJob } from '../../jobs/watch.js';
import type { WaitOptions } from './wait.js';

export async function runWait(ctx: Context, ref: string, options: WaitOptions): Promise<void> {
  const job = resolveJobRef(ctx, ref);
  await withJob(ctx, job, () => watchJob(ctx, job.id, { intervalSeconds: options.interval }));
}
