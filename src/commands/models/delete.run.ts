import type { DeleteModelResponse } from '../../api/types.js';
import type { Context } from '../../context.js';
import { ApiError, CliError } from '../../errors/errors.js';
import { forgetModel } from '../../models/local-record.js';
import { modelRecordFile, resolveModelArg, staleModelError } from '../../models/resolve.js';
import { confirmDestructive } from '../confirm.js';

export async function runDelete(ctx: Context, ref: string): Promise<void> {
  const { io } = ctx;
  const model = resolveModelArg(ctx, ref);
  await confirmDestructive(
    ctx,
    `Delete model ${model.label}, all its checkpoints and its run?`,
    'delete the model',
  );
  const record = modelRecordFile(ctx);
  const baseUrl = ctx.serviceUrl('training');
  // The local record only remembers names: a model is deleted whether or not it can be rewritten (a full
  // disk), and then a warning says that it still names the model. Whether it no longer names it:
  const forget = async (): Promise<boolean> => {
    try {
      await forgetModel(record, model.id, baseUrl);
      return true;
    } catch (error) {
      if (!(error instanceof CliError)) throw error;
      io.warn(`the model is gone, but ${record} still names it (${error.message})`);
      return false;
    }
  };
  let result: DeleteModelResponse | undefined;
  try {
    result = (await ctx.training().deleteModel(model.id)).data;
  } catch (error) {
    if (!(error instanceof ApiError && error.status === 404)) throw error;
    // Gone: nothing left to remember it by. If this answer came to a retry, the attempt whose answer
    // was lost is what deleted it, and the delete succeeded.
    const forgotten = await forget();
    // Given by a remembered name, it is a stale name (now forgotten); given by its id, the server's 404.
    if (error.attempts === 1) throw staleModelError(ctx, model, error, forgotten);
    io.warn(
      `the request was sent ${error.attempts} times and the model is gone: an earlier attempt deleted it`,
    );
  }
  await forget();
  if (ctx.json)
    return io.json(result ?? { model_id: model.id, deleted_checkpoints: null, deleted_run: null });
  if (io.quiet) return io.out(model.id);
  if (!result) return io.info(`Deleted model ${model.label}`);
  io.info(
    `Deleted model ${model.label}: ${result.deleted_checkpoints} checkpoint${result.deleted_checkpoints === 1 ? '' : 's'}${result.deleted_run ? ', and its run' : ''}`,
  );
}
