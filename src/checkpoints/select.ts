// The checkpoints a command that compares them takes (aip eval): each --model as given, a range
// `m:step*` for every checkpoint of m (narrowed by --every N, then --last K), or --steps 0,8,16 of the
// one model given; `m:best…` and `m:latest` resolved on the way. The flags are checked together first,
// then each model's checkpoints listed once; a range that selects nothing or a step the model does not
// have is a usage error, and nothing has been sampled. The steps chosen are said on stderr.

import type { Checkpoint } from '../api/types.js';
import type { Context } from '../context.js';
import { UsageError } from '../errors/errors.js';
import { type CheckpointName, parseCheckpointName, stepName } from './names.js';
import { CheckpointListings, listedModel, resolveCheckpointAlias } from './resolve-alias.js';
import { formatSteps, parseSteps } from './steps.js';

export interface RangeFlags {
  /** Only the steps that are a multiple of N. */
  every?: number;
  /** Only the K highest steps (after --every). */
  last?: number;
  /** The steps of the one model given: "0,8,16" or ranges "0-16". */
  steps?: string;
}

/** What is asked for: each --model, and which of them is the range --every, --last or --steps narrow. */
interface Plan {
  names: Array<{ ref: string; name: CheckpointName; range: boolean }>;
  steps: number[] | undefined;
}

/** The flags checked together, before anything is sent. */
function planOf(refs: readonly string[], flags: RangeFlags): Plan {
  const names = refs.map((ref) => {
    const name = parseCheckpointName(ref);
    return { ref, name, range: name.kind === 'range' };
  });
  const narrowing = [flags.every !== undefined && '--every', flags.last !== undefined && '--last'].filter(
    (f): f is string => typeof f === 'string',
  );
  if (flags.steps !== undefined) {
    if (narrowing.length)
      throw new UsageError(`--steps names the steps: it does not combine with ${narrowing.join(' or ')}`);
    const only = names.length === 1 ? names[0]! : undefined;
    if (!only || (only.name.kind !== 'model' && only.name.kind !== 'range'))
      throw new UsageError(
        only
          ? `--steps picks steps of the model given: give --model ${only.name.base} (without :${only.ref.slice(only.name.base.length + 1)})`
          : `--steps picks steps of one model: give --model once (not ${names.length} times)`,
      );
    only.range = true;
    return { names, steps: parseSteps(flags.steps) };
  }
  if (narrowing.length && !names.some((n) => n.range)) {
    const only = names.length === 1 && names[0]!.name.kind === 'model' ? names[0]! : undefined;
    if (!only)
      throw new UsageError(
        `${narrowing.join(' and ')} narrow${narrowing.length === 1 ? 's' : ''} a range of checkpoints: give --model NAME:step* (every checkpoint of NAME)`,
      );
    only.range = true;
  }
  return { names, steps: undefined };
}

/** The steps of a range that the flags keep, said on stderr; none is a usage error. */
function rangeSteps(
  ctx: Context,
  ref: string,
  checkpoints: readonly Checkpoint[],
  flags: RangeFlags,
  steps?: number[],
): number[] {
  const have = [...new Set(checkpoints.map((c) => c.step))].sort((a, b) => a - b);
  const what = `${ref}${steps ? ` --steps ${flags.steps}` : ''}${flags.every !== undefined ? ` --every ${flags.every}` : ''}${flags.last !== undefined ? ` --last ${flags.last}` : ''}`;
  const its = have.length ? `its checkpoints: steps ${formatSteps(have)}` : 'it has no checkpoint';
  let chosen: number[];
  if (steps) {
    const present = new Set(have);
    const missing = steps.filter((s) => !present.has(s));
    if (missing.length)
      throw new UsageError(
        `${what}: no checkpoint of step${missing.length === 1 ? '' : 's'} ${formatSteps(missing)} (${its}); nothing was sampled`,
      );
    chosen = steps;
  } else {
    chosen = flags.every !== undefined ? have.filter((s) => s % flags.every! === 0) : have;
    if (flags.last !== undefined) chosen = chosen.slice(-flags.last);
  }
  if (chosen.length === 0)
    throw new UsageError(`${what} selects no checkpoint (${its}); nothing was sampled`);
  ctx.io.info(
    `${what} → steps ${formatSteps(chosen)} (${chosen.length} of ${have.length} checkpoint${have.length === 1 ? '' : 's'})`,
  );
  return chosen;
}

/**
 * The checkpoints --model, --every, --last and --steps select, in the order given (a range's in
 * ascending steps): each a reference of one checkpoint (`m:stepN`, or a --model as given that names
 * one already). Every model listed at most once, and only where a name needs it.
 */
export async function selectCheckpoints(
  ctx: Context,
  refs: readonly string[],
  flags: RangeFlags = {},
): Promise<string[]> {
  const plan = planOf(refs, flags);
  const listings = new CheckpointListings(ctx);
  const selected: string[] = [];
  for (const { ref, name, range } of plan.names) {
    if (!range) {
      selected.push(await resolveCheckpointAlias(ctx, ref, { listings }));
      continue;
    }
    const model = listedModel(ctx, name.base, ref)!;
    const steps = rangeSteps(ctx, ref, await listings.all(model), flags, plan.steps);
    selected.push(...steps.map((step) => stepName(name.base, step)));
  }
  return selected;
}
