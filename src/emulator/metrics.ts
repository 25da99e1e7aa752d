// Plausible training metrics for step n: reward rising towards a plateau, loss falling, with seeded
// noise. Used for the checkpoints the emulator makes (and the gradient steps of its jobs).

import { seededRandom, seedFrom } from './random.js';

const round = (x: number, digits = 4) => Math.round(x * 10 ** digits) / 10 ** digits;

export function metricsAt(step: number, seed: string): Record<string, number> {
  const noise = seededRandom(seedFrom(`${seed}:${step}`));
  const jitter = (scale: number) => (noise() - 0.5) * 2 * scale;
  const progress = 1 - Math.exp(-step / 40);
  return {
    reward: round(0.15 + 0.7 * progress + jitter(0.05)),
    reward_std_dev: round(0.25 - 0.1 * progress + jitter(0.02)),
    loss: round(Math.max(0.01, 1.1 * Math.exp(-step / 50) + 0.05 + jitter(0.03))),
    grad_norm: round(0.8 + jitter(0.3)),
    learning_rate: 5e-6,
  };
}
