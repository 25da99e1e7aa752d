import type { Context } from '../../context.js';
import { resolveJobArg } from './resolve.js';
import { watchJob } from './watch.js';

export async function runWait(ctx: Context, ref: string, options: { interval?: number }): Promise<void> {
  await watchJob(ctx, resolveJobArg(ctx, ref), { intervalSeconds: options.interval });
}
