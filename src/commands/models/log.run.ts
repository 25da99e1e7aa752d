// `aip models log`: the file is checked offline, whole, before anything is sent; then one POST.

import type { Context } from '../../context.js';
import { UsageError } from '../../errors/errors.js';
import { resolveModelArg, withModel } from '../../models/resolve.js';
import { plural, trajectories } from '../../output/plural.js';
import { readTrajectoryGroups } from '../../validate/trajectory-file.js';
import type { LogOptions } from './log.js';

/** The splits ART and the platform's dashboards use. */
const KNOWN_SPLITS = ['train', 'val', 'test'];

export async function runLog(ctx: Context, ref: string, opts: LogOptions): Promise<void> {
  const { io } = ctx;
  if (!opts.split.trim()) throw new UsageError('--split must not be empty');
  // Any name is the platform's to take (api-contract.md: a string; ART logs "train" and "val"), but a
  // typo would start a split of its own without a word: said, and logged as given.
  if (!KNOWN_SPLITS.includes(opts.split))
    io.warn(`--split "${opts.split}" is not ${KNOWN_SPLITS.join(', ')}: logging to it as given`);
  const model = resolveModelArg(ctx, ref);
  const { groups, stats } = await readTrajectoryGroups(ctx, opts.file);
  const result = await withModel(ctx, model, () =>
    ctx.training().logTrajectories(model.id, { split: opts.split, trajectory_groups: groups }),
  );
  if (ctx.json) return io.json(result ?? null);
  const rewards = stats.minReward === undefined ? '' : `, rewards ${stats.minReward} to ${stats.maxReward}`;
  io.info(
    `Logged ${plural(stats.groups, 'group')} (${trajectories(stats.trajectories)}${rewards}) to split "${opts.split}" of ${model.label}`,
  );
}
