// How long a test waits for something before it calls it a failure. Every such bound (vitest's
// timeouts, a process that must say it is ready, a file that must appear) exists only so that a test
// that would hang fails instead; none measures speed, so each is set for a busy machine, not a quiet
// one. Measured here on 2 cores with four CPU-bound processes beside `npm test` (and other runs at the
// same time, load 12–25): a test took 2 to 15 times as long as on a quiet machine, a process 1–5 s
// to start. A bound that would hold only on a quiet machine is a test that fails on a busy CI runner.
//
// AIP_TEST_SLOWDOWN=<n> multiplies every bound by n (a slower machine still, an emulated CPU); it is
// read by vitest.config.ts too, so the run's timeouts and the helpers' agree.

const DEFAULT_SLOWDOWN = 1;

/** What AIP_TEST_SLOWDOWN asks for: a positive number (1 by default). */
export function resolveSlowdown(given: string | undefined): number {
  const value = given?.trim() ?? '';
  if (value === '') return DEFAULT_SLOWDOWN;
  const factor = Number(value);
  if (!Number.isFinite(factor) || factor <= 0) {
    throw new Error(`AIP_TEST_SLOWDOWN must be a positive number, not ${JSON.stringify(given)}`);
  }
  return factor;
}

export const SLOWDOWN = resolveSlowdown(process.env.AIP_TEST_SLOWDOWN);

/**
 * A bound of `ms` (chosen for a busy machine) times AIP_TEST_SLOWDOWN: for a timeout, never for an
 * assertion about how fast something is.
 */
export function patience(ms: number): number {
  return Math.round(ms * SLOWDOWN);
}
