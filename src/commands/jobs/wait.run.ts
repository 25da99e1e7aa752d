// `aip jobs wait`: follows the job to its end (src/jobs/watch.ts).

import type { Context } from '../../context.js';
import { resolveJobRef, withJob } from '../../jobs/resolve.js';
import { watchJob } from '../../jobs/watch.js';
import type { WaitOptions } from './wait.js';

export async function runWait(
  ctx: Context,
  ref: string,
  options: WaitOptions,
  argv: readonly string[] = [],
): Promise<void> {
  const job = resolveJobRef(ctx, ref);
  await withJob(ctx, job, () =>
    watchJob(ctx, job, { intervalSeconds: options.interval, stall: options.stall, argv }),
  );
}
