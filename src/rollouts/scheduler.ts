// The loop of a rollout run: slots (one per sample) started in order, each when the adaptive limit
// (adaptive-limit.ts) gives it a turn, until all have ended or the run stops. A started slot holds its
// turn as a Permit, which it may give back and take again (a 429's pause) and which is given back
// exactly once when the slot ends, however it ends: a window never leaks a turn or counts one twice.

import type { AdaptiveLimit } from './adaptive-limit.js';

export type PermitOutcome = 'ok' | 'throttled' | 'failed' | 'unused';

/** A slot's turn under the limit. */
export class Permit {
  private held = true;

  constructor(private readonly limit: AdaptiveLimit) {}

  /** Gives the turn back, telling the limit how the request went; a second call does nothing. */
  release(outcome: PermitOutcome, retryAfterMs?: number): void {
    if (!this.held) return;
    this.held = false;
    this.limit.release(outcome, retryAfterMs);
  }

  /** Waits for a turn again, after a release. */
  async again(): Promise<void> {
    if (this.held) return;
    await this.limit.acquire();
    this.held = true;
  }
}

/**
 * Runs `work` for each slot, in order, as turns come; resolves when every started slot has ended.
 * Once `stop` is aborted no slot starts. A failure is the run's to decide (it stops the run through
 * `stop`); one that `work` lets escape is thrown once every started slot has ended.
 */
export async function runSlots<S>(
  slots: Iterable<S>,
  limit: AdaptiveLimit,
  stop: AbortSignal,
  work: (slot: S, permit: Permit) => Promise<void>,
): Promise<void> {
  const inFlight = new Set<Promise<void>>();
  let escaped: { error: unknown } | undefined;
  for (const slot of slots) {
    await limit.acquire();
    if (stop.aborted) {
      limit.release('failed');
      break;
    }
    const permit = new Permit(limit);
    const running: Promise<void> = work(slot, permit)
      .catch((error: unknown) => {
        escaped ??= { error };
      })
      .finally(() => {
        // A slot that did not say how it went (it stopped) gives its turn back all the same.
        permit.release('failed');
        inFlight.delete(running);
      });
    inFlight.add(running);
  }
  await Promise.allSettled([...inFlight]);
  if (escaped) throw escaped.error;
}
