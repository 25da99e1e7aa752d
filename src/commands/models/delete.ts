import type { DeleteModelResponse } from '../../api/types.js';
import type { Context } from '../../context.js';
import { ApiError } from '../../errors.js';
import { forgetModel } from '../../registry/models.js';
import { confirmDestructive } from '../confirm.js';
import { modelRegistryFile, resolveModelArg } from './resolve.js';

export async function runDelete(ctx: Context, ref: string): Promise<void> {
  const { io } = ctx;
  const model = resolveModelArg(ctx, ref);
  await confirmDestructive(
    ctx,
    `Delete model ${model.label}, all its checkpoints and its run?`,
    'delete the model',
  );
  const registry = modelRegistryFile(ctx);
  const baseUrl = ctx.serviceUrl('training');
  let result: DeleteModelResponse;
  try {
    result = await ctx.training().deleteModel(model.id);
  } catch (error) {
    // Gone already: nothing left to remember it by.
    if (error instanceof ApiError && error.status === 404) await forgetModel(registry, model.id, baseUrl);
    throw error;
  }
  await forgetModel(registry, model.id, baseUrl);
  if (ctx.json) return io.json(result);
  if (io.quiet) return io.out(result.model_id);
  io.info(
    `Deleted model ${model.label}: ${result.deleted_checkpoints} checkpoint${result.deleted_checkpoints === 1 ? '' : 's'}${result.deleted_run ? ', and its run' : ''}`,
  );
}
