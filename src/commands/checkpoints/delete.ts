import type { Context } from '../../context.js';
import { NotFoundError } from '../../errors.js';
import { printFields } from '../../output/table.js';
import { confirmDestructive } from '../confirm.js';
import { resolveModelArg } from '../models/resolve.js';
import { parseSteps } from './steps.js';

export async function runDelete(ctx: Context, ref: string, opts: { steps: string }): Promise<void> {
  const { io } = ctx;
  const steps = parseSteps(opts.steps);
  const model = resolveModelArg(ctx, ref);
  await confirmDestructive(
    ctx,
    `Delete the checkpoints of steps ${steps.join(', ')} of ${model.label}?`,
    'delete checkpoints',
  );
  const result = await ctx.training().deleteCheckpoints(model.id, steps);
  const missing = new Set(result.not_found_steps);
  if (ctx.json) io.json(result);
  else {
    const deleted = steps.filter((s) => !missing.has(s));
    const list = (values: number[]) =>
      values.length ? values.join(io.isStdoutTTY ? ', ' : ',') : io.isStdoutTTY ? 'none' : '';
    if (!io.quiet) {
      printFields(io, [
        ['deleted', list(deleted)],
        ['not found', list(result.not_found_steps)],
      ]);
    }
  }
  if (result.deleted_count === 0) {
    throw new NotFoundError(`none of the steps ${steps.join(', ')} had a checkpoint in ${model.label}`);
  }
}
