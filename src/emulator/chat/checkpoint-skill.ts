// How well the emulated model does arithmetic at each training step: the answer is right with a chance
// that rises with the checkpoint's step, so that an RL loop on the emulator (`aip train rl`) shows its
// reward rising and `aip eval` shows later checkpoints scoring higher (issue 20). Base models are step 0.

import { seededRandom, seedFrom } from '../../lib/seeded-random.js';
import type { ArithmeticQuestion } from './arithmetic.js';

/**
 * p(step) = min(0.95, 0.2 + 0.2 · step): 0.2 untrained, 0.6 at step 2, 0.95 from step 4 on. Steep
 * enough that a loop of 3-5 steps shows it plainly over a few dozen samples; never 1, so a group of
 * samples keeps some spread of reward (RL learns nothing from a group whose rewards are all equal).
 */
export function rightChance(step: number): number {
  return Math.min(0.95, 0.2 + 0.2 * Math.max(0, step));
}

/** What a sample depends on besides the model: the same values, the same answer. */
export interface SampleKey {
  messages: ReadonlyArray<Record<string, unknown>>;
  temperature: number | null;
  /** The request's `seed` (OpenAI's parameter); null when not given. */
  seed: number | null;
  /** The choice's index, for `n` > 1. */
  choice: number;
}

/**
 * The number the model answers with. The draw leaves the model out: one sample (the same messages,
 * temperature, seed and choice) draws the same number u at every step and is right when u < p(step),
 * so a sample answered right by one checkpoint is answered right by every later one, and an eval over
 * a fixed task set with a fixed seed rises without dips.
 */
export function answerOf(question: ArithmeticQuestion, step: number, key: SampleKey): bigint {
  const random = seededRandom(
    seedFrom(JSON.stringify(['arithmetic', key.messages, key.temperature, key.seed, key.choice])),
  );
  if (random() < rightChance(step)) return question.answer;
  return nearbyWrong(question.answer, random);
}

/**
 * A wrong answer close to the right one (off by 1 to 3, either way), never one whose digits contain the
 * right answer's: a `contains` reward must not count "140" as right for 14.
 */
function nearbyWrong(answer: bigint, random: () => number): bigint {
  const right = String(answer);
  const offsets = [1n, -1n, 2n, -2n, 3n, -3n];
  const start = Math.floor(random() * offsets.length);
  for (let i = 0; i < offsets.length; i++) {
    const candidate = answer + offsets[(start + i) % offsets.length]!;
    if (!String(candidate).includes(right)) return candidate;
  }
  return answer + 5n; // not reached: of ±1…±3 at most one can contain the answer (1 → -1)
}

/** The reply: the number alone when the prompt asks for only that, else a short sentence with it. */
export function arithmeticReply(question: ArithmeticQuestion, answer: bigint): string {
  return question.numberOnly ? String(answer) : `The answer is ${answer}.`;
}
