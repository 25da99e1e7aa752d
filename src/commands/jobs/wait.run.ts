import type { Context } from '../../context.js';
import { resolveJobRef, withJob } from './resolve.js';
import type { WaitOptions } from './wait.js';
import { watchJob } from './watch.js';

export async function runWait(ctx: Context, ref: string, options: WaitOptions): Promise<void> {
  const job = resolveJobRef(ctx, ref);
  await withJob(ctx, job, () => watchJob(ctx, job.id, { intervalSeconds: options.interval }));
}
