// The checkpoint names that are found by listing a model's checkpoints rather than given as a step:
// `m:latest` (the highest step), `m:best` / `m:best[metric]` (the best by a metric, `reward` unless
// named), and the range `m:step*` (every checkpoint; eval's --every and --last narrow it). `m` is a
// name of a model created here, or wandb-artifact:///team/project/name. Nothing here is sent anywhere.

import { UsageError } from '../errors/errors.js';

/** The metric :best goes by when none is named. */
export const DEFAULT_BEST_METRIC = 'reward';

export interface BestBy {
  metric: string;
  /** Lower is better: a loss-like metric, or one given with :min. */
  lowest: boolean;
}

export type CheckpointName =
  | { kind: 'latest'; base: string }
  | { kind: 'best'; base: string; by: BestBy }
  | { kind: 'range'; base: string }
  | { kind: 'step'; base: string; step: number }
  | { kind: 'model'; base: string };

const SUFFIX = /^(.+?):(latest|step\*|step(\d+)|best(\[.*)?)$/s;

/**
 * The rule of :best without :min or :max: lower is better for a loss (a metric named `loss`, or
 * ending in `_loss`, `-loss` or `.loss`: policy_loss, val-loss), higher for anything else.
 */
export function lowerIsBetter(metric: string): boolean {
  return /(^|[_.-])loss$/i.test(metric);
}

/** `reward`, `loss`, `kl_div:min`: the metric between the brackets of :best[…], and which way is better. */
export function parseBestBy(text: string | undefined, ref: string): BestBy {
  if (text === undefined) return { metric: DEFAULT_BEST_METRIC, lowest: false };
  const match = /^(.+?)(?::(min|max))?$/s.exec(text);
  const metric = match?.[1]?.trim();
  if (!metric)
    throw new UsageError(
      `"${ref}": :best[METRIC] needs a metric between the brackets, e.g. :best[reward] or :best[loss]`,
    );
  return { metric, lowest: match![2] ? match![2] === 'min' : lowerIsBetter(metric) };
}

/** What a model reference names: a model, one of its steps, or a checkpoint found by listing. */
export function parseCheckpointName(ref: string): CheckpointName {
  const match = SUFFIX.exec(ref);
  if (!match) return { kind: 'model', base: ref };
  const [, base, suffix, step, bracket] = match as unknown as [string, string, string, string?, string?];
  if (suffix === 'latest') return { kind: 'latest', base };
  if (suffix === 'step*') return { kind: 'range', base };
  if (step !== undefined) return { kind: 'step', base, step: Number(step) };
  if (bracket !== undefined && !bracket.endsWith(']'))
    throw new UsageError(`"${ref}": close the metric's bracket, as in ${base}:best[reward]`);
  return { kind: 'best', base, by: parseBestBy(bracket?.slice(1, -1), ref) };
}

/** Whether a reference is found by listing the model's checkpoints (:latest, :best…, :step*). */
export function isListedName(ref: string): boolean {
  const kind = parseCheckpointName(ref).kind;
  return kind === 'latest' || kind === 'best' || kind === 'range';
}

/** The name of one step of the model of `base`, in the form it was given. */
export const stepName = (base: string, step: number) => `${base}:step${step}`;

/** A name from the server as it may be printed: as it is when plain, else quoted with escapes. */
export const shownName = (name: string) => (/^[\w.\-/]+$/.test(name) ? name : JSON.stringify(name));
