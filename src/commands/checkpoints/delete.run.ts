import { formatSteps, parseSteps } from '../../checkpoints/steps.js';
import type { Context } from '../../context.js';
import { CliError, NotFoundError } from '../../errors/errors.js';
import { withArgument } from '../../lib/shell-word.js';
import { resolveModelArg, withModel } from '../../models/resolve.js';
import { printFields } from '../../output/table.js';
import { confirmDestructive } from '../confirm.js';
import type { DeleteOptions } from './delete.js';

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
  // What the answer says, step by step: the steps asked that it does not call not found are the deleted
  // ones. Its count must agree, and it must name no step that was not asked; when not, which steps are
  // gone is not known, and the table shows the answer as it came instead of a list aip would make up.
  const asked = new Set(steps);
  const deleted = steps.filter((s) => !missing.has(s));
  const strangers = result.not_found_steps.filter((s) => !asked.has(s));
  const disagreement =
    strangers.length > 0
      ? `it calls steps ${formatSteps(strangers)} not found, which were not asked for`
      : result.deleted_count !== deleted.length
        ? `it counts ${result.deleted_count} deleted, but calls ${result.not_found_steps.length} of the ${steps.length} steps asked not found`
        : undefined;
  if (ctx.json) io.json(result);
  else if (!io.quiet) {
    const list = (values: number[]) =>
      values.length
        ? io.isStdoutTTY
          ? formatSteps(values)
          : values.join(',')
        : io.isStdoutTTY
          ? 'none'
          : '';
    printFields(
      io,
      disagreement
        ? [
            ['asked', list(steps)],
            ['deleted count', String(result.deleted_count)],
            ['not found', list(result.not_found_steps)],
          ]
        : [
            ['deleted', list(deleted)],
            ['not found', list(result.not_found_steps)],
          ],
    );
  }
  if (disagreement)
    throw new CliError(
      `the answer to the delete of steps ${formatSteps(steps)} of ${model.label} disagrees with itself: ${disagreement}; which checkpoints are gone is not known`,
      {
        hint: `see what is left with ${ctx.commandLine(withArgument(['checkpoints', 'list'], ref, ['--all']))}`,
      },
    );
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
