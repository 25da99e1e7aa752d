// `m:latest`, `m:best` and `m:best[metric]` turned into the step they name, by listing the model's
// checkpoints (one listing per model, however many names of it there are), before anything else is
// sent; said on stderr as `agent:best → agent:step12 (reward 0.93)`. The result is `m:stepN` in the
// form `m` was given, which the commands then resolve as any other step.

import type { Checkpoint } from '../api/types.js';
import type { Context } from '../context.js';
import { NotFoundError, UsageError } from '../errors/errors.js';
import { type ModelRef, resolveModelArg, withModel } from '../models/resolve.js';
import { bestCheckpoint, metricText, noCheckpointWith } from './best.js';
import { latestCheckpoint, listAllCheckpoints } from './list.js';
import { type CheckpointName, parseCheckpointName, stepName } from './names.js';

const ARTIFACT = 'wandb-artifact:///';

/** The checkpoints of each model, listed once for all the names that need them. */
export class CheckpointListings {
  private readonly lists = new Map<string, Promise<Checkpoint[]>>();
  constructor(private readonly ctx: Context) {}

  /** Every checkpoint of the model. */
  all(model: ModelRef): Promise<Checkpoint[]> {
    let list = this.lists.get(model.id);
    if (!list) {
      list = withModel(this.ctx, model, () => listAllCheckpoints(this.ctx, model.id));
      this.lists.set(model.id, list);
    }
    return list;
  }

  /** The checkpoint of the highest step: from a listing made already, else one request for it. */
  async latest(model: ModelRef): Promise<Checkpoint | undefined> {
    const list = this.lists.get(model.id);
    if (list)
      return (await list).reduce<Checkpoint | undefined>(
        (a, c) => (a && a.step >= c.step ? a : c),
        undefined,
      );
    return withModel(this.ctx, model, () => latestCheckpoint(this.ctx, model.id));
  }
}

/**
 * The model whose checkpoints a listed name chooses among: a name created here, or the
 * team/project/name of a wandb-artifact:/// URI that is. `undefined` for a name aip does not know and
 * `lenient` (chat: perhaps an Inference API model whose id ends in :latest).
 */
export function listedModel(ctx: Context, base: string, ref: string, lenient = false): ModelRef | undefined {
  const artifact = base.startsWith(ARTIFACT);
  let model: ModelRef;
  try {
    model = resolveModelArg(ctx, artifact ? base.slice(ARTIFACT.length) : base);
  } catch (error) {
    if (lenient && !artifact && error instanceof NotFoundError) return undefined;
    throw error;
  }
  if (!model.entry)
    throw new UsageError(
      `"${ref}": its checkpoints are chosen by the model's name, and ${base} is not one created here: give the name (${ctx.commandLine(['models', 'list', '--remembered'])})`,
    );
  return model;
}

/** The step a :latest or :best name resolves to, said on stderr. */
async function resolveOne(
  ctx: Context,
  ref: string,
  name: Extract<CheckpointName, { kind: 'latest' | 'best' }>,
  model: ModelRef,
  listings: CheckpointListings,
): Promise<string> {
  if (name.kind === 'latest') {
    const latest = await listings.latest(model);
    if (!latest) throw new UsageError(`"${ref}": ${model.label} has no checkpoint yet`);
    const resolved = stepName(name.base, latest.step);
    ctx.io.info(`${ref} → ${resolved}`);
    return resolved;
  }
  const checkpoints = await listings.all(model);
  const best = bestCheckpoint(checkpoints, name.by);
  if (!best) throw noCheckpointWith(checkpoints, name.by.metric, model.label);
  const resolved = stepName(name.base, best.checkpoint.step);
  ctx.io.info(
    `${ref} → ${resolved} (${metricText(name.by.metric, best.value)}, ${name.by.lowest ? 'lowest' : 'highest'} of ${checkpoints.length} checkpoint${checkpoints.length === 1 ? '' : 's'})`,
  );
  return resolved;
}

/**
 * A model reference with :latest or :best… resolved to `m:stepN` (the checkpoints listed for it);
 * any other reference as it is. A range (`m:step*`) names many checkpoints: refused here (one is
 * taken), eval takes it (checkpoints/select.ts). `lenient`: a name aip does not know is kept as it is.
 */
export async function resolveCheckpointAlias(
  ctx: Context,
  ref: string,
  options: { lenient?: boolean; listings?: CheckpointListings } = {},
): Promise<string> {
  const name = parseCheckpointName(ref);
  if (name.kind === 'range')
    throw new UsageError(
      `"${ref}" names every checkpoint of ${name.base}, and one is taken here: give ${name.base}:stepN, ${name.base}:best or ${name.base}:latest (aip eval takes a range)`,
    );
  if (name.kind !== 'latest' && name.kind !== 'best') return ref;
  const model = listedModel(ctx, name.base, ref, options.lenient);
  if (!model) return ref;
  return resolveOne(ctx, ref, name, model, options.listings ?? new CheckpointListings(ctx));
}
