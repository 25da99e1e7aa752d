// Plausible training metrics, with seeded noise. metricsAt() is the curve of checkpoints added by hand
// (/_emulator/models/{id}/checkpoints); gradientStep() the data of a job's gradient_step events, with
// the keys the contract lists, following the data the job trains on (docs/emulator.md, "Job metrics"):
//
//   p(k)   = (1 − e^(−4k/n)) / (1 − e^(−4))        progress at step k of n: p(n) = 1
//   reward = to + (from − to)·(1 − p) + noise        from: the model's latest reward when the job was
//                                                    created; to: the mean reward of the trajectories
//   loss   = to + (from − to)·(1 − p) + noise        (SFT) to: a loss set by the data; from: where the
//                                                    model was, or the data's untrained loss
//
// The noise is ±(0.015 + 0.035·(1 − p)) for reward and ±(0.01 + 0.03·(1 − p)) for SFT loss: a job
// ends within ±0.015 of its data's reward, or ±0.01 of its data's loss.

import { seededRandom, seedFrom } from '../lib/seeded-random.js';

const round = (x: number, digits = 4) => Math.round(x * 10 ** digits) / 10 ** digits;

function noise(seed: string, step: number): (scale: number) => number {
  const random = seededRandom(seedFrom(`${seed}:${step}`));
  return (scale) => (random() - 0.5) * 2 * scale;
}

export function metricsAt(step: number, seed: string): Record<string, number> {
  const jitter = noise(seed, step);
  const progress = 1 - Math.exp(-step / 40);
  return {
    reward: round(0.15 + 0.7 * progress + jitter(0.05)),
    reward_std_dev: round(0.25 - 0.1 * progress + jitter(0.02)),
    loss: round(Math.max(0.01, 1.1 * Math.exp(-step / 50) + 0.05 + jitter(0.03))),
    grad_norm: round(0.8 + jitter(0.3)),
    learning_rate: 5e-6,
  };
}

/** What the data a job trains on says of where its metrics go; kept with the job (durable). */
export interface DataSummary {
  /** RL: the trajectories' mean reward, each trajectory counted once (0.0 where it has none). */
  reward?: number;
  /** RL: the spread of those rewards (population standard deviation). */
  reward_std_dev?: number;
  /** RL: the lowest and highest trajectory reward: a mean of them never leaves that range. */
  reward_min?: number;
  reward_max?: number;
  /** SFT: the loss training on the data levels off at. */
  loss?: number;
}

/** Where the model was when the job was created (its latest checkpoint); kept with the job. */
export interface StartingPoint {
  reward: number;
  loss: number;
}

/** A model no job has trained yet: its reward before any RL step. */
export const UNTRAINED_REWARD = 0.2;
/** How far above the data's level an SFT job starts on a model not fine-tuned before. */
export const UNTRAINED_LOSS_ABOVE = 0.9;

/** The summary of an RL job's trajectory groups: {} when there is no trajectory at all. */
export function rlDataSummary(groups: ReadonlyArray<{ trajectories: readonly unknown[] }>): DataSummary {
  const rewards = groups.flatMap((g) =>
    g.trajectories.map((t) => {
      const reward = (t as { reward?: unknown } | null)?.reward;
      return typeof reward === 'number' && Number.isFinite(reward) ? reward : 0;
    }),
  );
  if (rewards.length === 0) return {};
  const mean = rewards.reduce((s, r) => s + r, 0) / rewards.length;
  const variance = rewards.reduce((s, r) => s + (r - mean) ** 2, 0) / rewards.length;
  return {
    reward: round(mean, 6),
    reward_std_dev: round(Math.sqrt(variance), 6),
    reward_min: rewards.reduce((a, b) => Math.min(a, b)),
    reward_max: rewards.reduce((a, b) => Math.max(a, b)),
  };
}

/**
 * The loss an SFT job's data lets it reach, in [0.2, 0.7). The emulator cannot fetch the artifact, so
 * its URL stands for the data: the same URL, the same level, whatever the emulator's seed.
 */
export function sftTargetLoss(trainingDataUrl: string): number {
  return round(0.2 + 0.5 * seededRandom(seedFrom(`sft-data:${trainingDataUrl}`))(), 4);
}

/**
 * Where a job starts: the reward of the model's latest checkpoint (else UNTRAINED_REWARD); its loss when
 * that checkpoint has a loss and no reward (an SFT one), else the data's untrained loss.
 */
export function startingPoint(latest: Record<string, number> | undefined, data: DataSummary): StartingPoint {
  const reward = latest?.reward;
  const loss = latest?.loss;
  return {
    reward: typeof reward === 'number' && Number.isFinite(reward) ? reward : UNTRAINED_REWARD,
    loss:
      typeof loss === 'number' && Number.isFinite(loss) && reward === undefined
        ? loss
        : (data.loss ?? 0.05) + UNTRAINED_LOSS_ABOVE,
  };
}

export interface StepContext {
  kind: 'rl' | 'sft';
  /** 1-based step of `steps`. */
  step: number;
  steps: number;
  learningRate: number;
  groups: number;
  trajectories: number;
  seed: string;
  /** The job's data and starting point; absent for a job made without (kept from before they were). */
  data?: DataSummary;
  start?: StartingPoint;
}

/** Progress at step k of n: 0 before the first step, 1 at the last, quickest at first. */
export const progressAt = (step: number, steps: number) =>
  (1 - Math.exp((-4 * step) / steps)) / (1 - Math.exp(-4));

const clamp = (x: number, low: number, high: number) => Math.min(high, Math.max(low, x));

/** The reward of step k: from where the model was to the data's mean, within their range. */
function rewardAt(c: StepContext, p: number, jitter: (scale: number) => number): number {
  const from = c.start?.reward ?? UNTRAINED_REWARD;
  // Without data (a job made before jobs kept theirs) the old plateau; without trajectories, no move.
  const to = c.data ? (c.data.reward ?? from) : 0.8;
  const value = to + (from - to) * (1 - p) + jitter(0.015 + 0.035 * (1 - p));
  const low = Math.min(from, c.data?.reward_min ?? -Infinity);
  const high = Math.max(from, c.data?.reward_max ?? Infinity);
  return round(clamp(value, low, high));
}

/** The loss of step k: an SFT job's falls from where the model was to the data's level. */
function lossAt(c: StepContext, p: number, jitter: (scale: number) => number): number {
  if (c.kind === 'sft' && c.data?.loss !== undefined) {
    const to = c.data.loss;
    const from = c.start?.loss ?? to + UNTRAINED_LOSS_ABOVE;
    return round(Math.max(0.01, to + (from - to) * (1 - p) + jitter(0.01 + 0.03 * (1 - p))));
  }
  return round(Math.max(0.01, 0.9 * Math.exp((-2.5 * c.step) / c.steps) + 0.05 + jitter(0.03)));
}

/** The data of one gradient_step event (api-contract.md §2.4). */
export function gradientStep(c: StepContext): Record<string, number> {
  const jitter = noise(c.seed, c.step);
  const p = progressAt(c.step, c.steps);
  const loss = lossAt(c, p, jitter);
  const tokens = Math.round(c.trajectories * (900 + jitter(300)));
  const common = {
    loss,
    grad_norm: round(0.9 - 0.3 * p + jitter(0.2)),
    learning_rate: c.learningRate,
    num_tokens: tokens,
    tokens_per_second: round(4200 + jitter(600), 1),
    num_datums: c.trajectories,
    gradient_step: c.step,
  };
  if (c.kind === 'sft') return common;
  const spread = c.data?.reward_std_dev ?? 0.3 - 0.15 * p;
  return {
    ...common,
    reward: rewardAt(c, p, jitter),
    reward_std_dev: round(Math.max(0, spread + jitter(0.02))),
    policy_loss: round(loss * 0.8),
    entropy: round(1.2 - 0.5 * p + jitter(0.05)),
    kl_div: round(Math.abs(0.02 * p + jitter(0.005))),
    kl_policy_ref: round(Math.abs(0.015 * p + jitter(0.004))),
    exception_rate: 0,
    num_groups_submitted: c.groups,
    num_groups_trainable: c.groups,
    num_trajectories: c.trajectories,
    num_trainable_tokens: Math.round(tokens * 0.4),
    train_tokens: Math.round(tokens * 0.4),
  };
}
