import type { Context } from '../../context.js';
import { ApiError, NotFoundError } from '../../errors/errors.js';
import { printTable } from '../../output/table.js';

export async function runBase(ctx: Context): Promise<void> {
  const { io } = ctx;
  let models: string[];
  try {
    models = await ctx.training({ auth: 'optional' }).baseModels();
  } catch (error) {
    // Older deployments lack the endpoint (api-contract.md §2.7).
    if (error instanceof ApiError && error.status === 404) {
      throw new NotFoundError(
        `${ctx.serviceUrl('training')} does not list its trainable base models (no GET /preview/base-models); the platform documents OpenPipe/Qwen3-14B-Instruct and Qwen/Qwen3-30B-A3B-Instruct-2507`,
      );
    }
    throw error;
  }
  if (ctx.json) return io.json(models);
  printTable(io, models, [{ header: 'base model', value: (m) => m }], {
    empty: `${ctx.serviceUrl('training')} lists no trainable base models`,
  });
}
