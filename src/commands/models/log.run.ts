// `aip models log`: the file is checked offline, whole, before anything is sent; then one POST.

import type { Context } from '../../context.js';
import { UsageError } from '../../errors/errors.js';
import { resolveModelArg, withModel } from '../../models/resolve.js';
import { readTrajectoryGroups } from '../../validate/trajectory-file.js';
import type { LogOptions } from './log.js';

export async function runLog(ctx: Context, ref: string, opts: LogOptions): Promise<void> {
  const { io } = ctx;
  if (!opts.split.trim()) throw new UsageError('--split must not be empty');
  const model = resolveModelArg(ctx, ref);
  const { groups, stats } = await readTrajectoryGroups(ctx, opts.file);
  const result = await withModel(ctx, model, () =>
    ctx.training().logTrajectories(model.id, { split: opts.split, trajectory_groups: groups }),
  );
  if (ctx.json) return io.json(result ?? null);
  const rewards = stats.minReward === undefined ? '' : `, rewards ${stats.minReward} to ${stats.maxReward}`;
  io.info(
    `Logged ${stats.groups} groups (${stats.trajectories} trajectories${rewards}) to split "${opts.split}" of ${model.label}`,
  );
}
