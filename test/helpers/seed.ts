// The seed of every generated case (fast-check properties, random kill points, shuffled inputs). Fixed
// by default, so that a run draws the same cases as the last one and a contributor's first `npm test`
// fails only on what they changed. AIP_TEST_SEED=<n> replays the cases of seed n; AIP_TEST_SEED=random
// draws a new seed, to look for new counterexamples: test/global-setup.ts draws it once for the run,
// prints it, and hands it to the workers as AIP_TEST_SEED=<n> (a failing property prints it too, as
// fast-check's `seed`): that is the number to pass back.

import { randomInt } from 'node:crypto';

export const DEFAULT_SEED = 20261121;

/** What AIP_TEST_SEED asks for: a seed, and whether it was drawn at random. */
export function resolveSeed(given: string | undefined): { seed: number; random: boolean } {
  const value = given?.trim() ?? '';
  if (value === '') return { seed: DEFAULT_SEED, random: false };
  if (value.toLowerCase() === 'random') return { seed: randomInt(1, 2 ** 31 - 1), random: true };
  const seed = Number(value);
  // A 32-bit integer, as fast-check keeps it: the seed it prints is then the one given.
  if (!Number.isInteger(seed) || seed !== (seed | 0)) {
    throw new Error(`AIP_TEST_SEED must be a 32-bit integer or "random", not ${JSON.stringify(given)}`);
  }
  return { seed, random: false };
}

/** This test file's seed (the run's, set by test/global-setup.ts). */
export const TEST_SEED = resolveSeed(process.env.AIP_TEST_SEED).seed;
