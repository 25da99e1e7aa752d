import { patience } from './patience.js';

/**
 * Resolves once `condition` holds (polled every few ms; an async condition may ask the emulator what
 * it has seen); fails after `ms` so that a test never hangs. The bound is for a busy machine
 * (test/helpers/patience.ts): a condition that holds at all holds long before it.
 */
export async function waitFor(
  condition: () => boolean | Promise<boolean>,
  ms = patience(30_000),
  what = 'condition',
): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`${what} not met in ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
