// `aip checkpoints prune`: list every checkpoint, keep the last N steps and the best by a metric,
// delete the rest in one request. --dry-run shows the plan and sends nothing but the listing.

import type { Checkpoint } from '../../api/types.js';
import { formatSteps } from '../../checkpoints/steps.js';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors/errors.js';
import { ownValue } from '../../lib/own.js';
import { resolveModelArg, withModel } from '../../models/resolve.js';
import { plural } from '../../output/plural.js';
import { printTable } from '../../output/table.js';
import { confirmDestructive } from '../confirm.js';
import { unknownMetric } from './format.js';
import { fetchAllCheckpoints } from './list.run.js';
import type { PruneOptions } from './prune.js';

interface Best {
  metric: string;
  lowest: boolean;
  step: number;
  value: number;
}

export interface PrunePlan {
  keep: number[];
  delete: number[];
  /** Why each kept step is kept. */
  reasons: Record<number, string[]>;
  best: Best | null;
}

function parseKeepBest(spec: string): { metric: string; lowest: boolean } {
  const match = /^(.+?)(?::(min|max))?$/.exec(spec.trim());
  if (!match?.[1])
    throw new UsageError(`invalid --keep-best "${spec}": give a metric, optionally :min or :max`);
  return { metric: match[1], lowest: match[2] === 'min' };
}

export function planPrune(checkpoints: readonly Checkpoint[], options: PruneOptions): PrunePlan {
  const steps = [...checkpoints].sort((a, b) => a.step - b.step);
  const reasons: Record<number, string[]> = {};
  const keep = (step: number, reason: string) => {
    reasons[step] = [...(reasons[step] ?? []), reason];
  };
  if (options.keepLast)
    for (const c of steps.slice(-options.keepLast)) keep(c.step, `last ${options.keepLast}`);
  let best: Best | null = null;
  if (options.keepBest !== undefined) {
    const { metric, lowest } = parseKeepBest(options.keepBest);
    for (const c of steps) {
      const value = ownValue(c.metrics, metric);
      if (typeof value !== 'number') continue;
      if (!best || (lowest ? value < best.value : value > best.value))
        best = { metric, lowest, step: c.step, value };
    }
    if (!best) {
      throw unknownMetric(steps, metric, '');
    }
    keep(best.step, `best ${metric} (${lowest ? 'lowest' : 'highest'})`);
  }
  return {
    keep: steps.filter((c) => reasons[c.step]).map((c) => c.step),
    delete: steps.filter((c) => !reasons[c.step]).map((c) => c.step),
    reasons,
    best,
  };
}

export async function runPrune(ctx: Context, ref: string, options: PruneOptions): Promise<void> {
  const { io } = ctx;
  if (!options.keepLast && options.keepBest === undefined) {
    throw new UsageError('say what to keep: --keep-last N, --keep-best METRIC, or both');
  }
  const model = resolveModelArg(ctx, ref);
  const checkpoints = await withModel(ctx, model, () => fetchAllCheckpoints(ctx, model.id));
  const plan = planPrune(checkpoints, options);
  const byStep = new Map(checkpoints.map((c) => [c.step, c]));

  if (!ctx.json && !io.quiet) {
    const rows = [...byStep.values()].sort((a, b) => a.step - b.step);
    printTable(io, rows, [
      { header: 'step', value: (c) => c.step },
      {
        header: 'action',
        value: (c) => (plan.reasons[c.step] ? 'keep' : 'delete'),
        color: (text, _c, s) => (text === 'keep' ? s.green(text) : s.red(text)),
      },
      { header: 'why', value: (c) => plan.reasons[c.step]?.join(', ') ?? '' },
      ...(plan.best
        ? [{ header: plan.best.metric, value: (c: Checkpoint) => c.metrics[plan.best!.metric] }]
        : []),
    ]);
  }
  const summary = { keep: plan.keep, delete: plan.delete, best: plan.best };
  if (options.dryRun || plan.delete.length === 0) {
    if (ctx.json) io.json({ ...summary, dry_run: options.dryRun === true, deleted: null });
    io.info(
      plan.delete.length === 0
        ? `Nothing to prune: all ${plan.keep.length} checkpoints of ${model.label} are kept`
        : `Dry run: would delete ${plan.delete.length} of ${plural(checkpoints.length, 'checkpoint')} of ${model.label}; nothing was deleted`,
    );
    return;
  }
  await confirmDestructive(
    ctx,
    `Delete ${plan.delete.length} of ${plural(checkpoints.length, 'checkpoint')} of ${model.label}, keeping steps ${formatSteps(plan.keep)}?`,
    'delete checkpoints',
  );
  const { data: result } = await withModel(ctx, model, () =>
    ctx.training().deleteCheckpoints(model.id, plan.delete),
  );
  if (ctx.json) return io.json({ ...summary, dry_run: false, deleted: result });
  io.info(
    `Deleted ${plural(result.deleted_count, 'checkpoint')} of ${model.label}${result.not_found_steps.length ? ` (${result.not_found_steps.length} were already gone)` : ''}; kept steps ${formatSteps(plan.keep)}`,
  );
}
