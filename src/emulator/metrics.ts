// Plausible training metrics: reward rising towards a plateau, loss falling, with seeded noise.
// metricsAt() is the curve of checkpoints added by hand (/_emulator/models/{id}/checkpoints);
// gradientStep() the data of a job's gradient_step events, with the keys the contract lists.

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

export interface StepContext {
  kind: 'rl' | 'sft';
  /** 1-based step of `steps`. */
  step: number;
  steps: number;
  learningRate: number;
  groups: number;
  trajectories: number;
  seed: string;
}

/** The data of one gradient_step event (api-contract.md §2.4). */
export function gradientStep(c: StepContext): Record<string, number> {
  const jitter = noise(c.seed, c.step);
  const progress = 1 - Math.exp((-3 * c.step) / c.steps);
  const loss = round(Math.max(0.01, 0.9 * Math.exp((-2.5 * c.step) / c.steps) + 0.05 + jitter(0.03)));
  const tokens = Math.round(c.trajectories * (900 + jitter(300)));
  const common = {
    loss,
    grad_norm: round(0.9 - 0.3 * progress + jitter(0.2)),
    learning_rate: c.learningRate,
    num_tokens: tokens,
    tokens_per_second: round(4200 + jitter(600), 1),
    num_datums: c.trajectories,
    gradient_step: c.step,
  };
  if (c.kind === 'sft') return common;
  return {
    ...common,
    reward: round(0.2 + 0.6 * progress + jitter(0.05)),
    reward_std_dev: round(0.3 - 0.15 * progress + Math.abs(jitter(0.02))),
    policy_loss: round(loss * 0.8),
    entropy: round(1.2 - 0.5 * progress + jitter(0.05)),
    kl_div: round(Math.abs(0.02 * progress + jitter(0.005))),
    kl_policy_ref: round(Math.abs(0.015 * progress + jitter(0.004))),
    exception_rate: 0,
    num_groups_submitted: c.groups,
    num_groups_trainable: c.groups,
    num_trajectories: c.trajectories,
    num_trainable_tokens: Math.round(tokens * 0.4),
    train_tokens: Math.round(tokens * 0.4),
  };
}
