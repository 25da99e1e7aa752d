import type { Context } from '../../context.js';
import { NotFoundError } from '../../errors/errors.js';
import { resolveModelArg, withModel } from '../../models/resolve.js';
import { printFields } from '../../output/table.js';
import { confirmDestructive } from '../confirm.js';
import type { DeleteOptions } from './delete.js';
import { formatSteps, parseSteps } from './steps.js';

export async function runDelete(ctx: Context, ref: string, opts: DeleteOptions): Promise<void> {
  const { io } = ctx;
  const steps = parseSteps(opts.steps);
  const model = resolveModelArg(ctx, ref);
  await confirmDestructive(
    ctx,
    `Delete the checkpoints of steps ${formatSteps(steps)} of ${model.label}?`,
    'delete checkpoints',
  );
  const { data: result, attempts } = await withModel(ctx, model, () =>
    ctx.training().deleteCheckpoints(model.id, steps),
  );
  const missing = new Set(result.not_found_steps);
  if (ctx.json) io.json(result);
  else if (!io.quiet) {
    const deleted = steps.filter((s) => !missing.has(s));
    const list = (values: number[]) =>
      values.length
        ? io.isStdoutTTY
          ? formatSteps(values)
          : values.join(',')
        : io.isStdoutTTY
          ? 'none'
          : '';
    printFields(io, [
      ['deleted', list(deleted)],
      ['not found', list(result.not_found_steps)],
    ]);
  }
  // A DELETE is retried when its answer is lost: the attempt that got through may have deleted the
  // steps that this answer calls not found.
  if (attempts > 1 && missing.size > 0) {
    io.warn(
      `the request was sent ${attempts} times: steps reported as not found may have been deleted by an earlier attempt`,
    );
    return;
  }
  if (result.deleted_count === 0) {
    throw new NotFoundError(`none of the steps ${formatSteps(steps)} had a checkpoint in ${model.label}`);
  }
}
