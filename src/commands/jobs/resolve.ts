import type { Context } from '../../context.js';
import { registryFile } from '../../registry/file.js';
import { readJobRegistry, resolveJob } from '../../registry/jobs.js';

export function jobRegistryFile(ctx: Context): string {
  return registryFile(ctx, 'jobs');
}

export function resolveJobArg(ctx: Context, ref: string): string {
  return resolveJob(readJobRegistry(jobRegistryFile(ctx)), ref, ctx.serviceUrl('training'));
}
