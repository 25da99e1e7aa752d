// The adaptive limit of rollouts (src/rollouts/adaptive-limit.ts), imported directly: the window
// halved by a 429 and widened by 1/window on each success, never below 1 nor above --concurrency,
// every start held until Retry-After has passed, wakeAll and close. The clock is a number the test
// moves (injected through the constructor) and the pause's timer is vitest's fake setTimeout, moved
// with it: nothing here waits for time to pass, and nothing depends on how fast the machine is.

import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { AdaptiveLimit } from '../../src/rollouts/adaptive-limit.js';

let clock = 0;
const now = () => clock;

beforeEach(() => {
  clock = 0;
  // Only the timers: the limit's clock is the injected `now`, and setImmediate (settled()) stays real.
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
});
afterEach(() => vi.useRealTimers());

/** Moves the injected clock and the fake timers together by `ms`. */
function advance(ms: number): void {
  clock += ms;
  vi.advanceTimersByTime(ms);
}

/** Lets every promise that can settle do so (one turn of the event loop; no time passes). */
const settled = () => new Promise<void>((resolve) => setImmediate(resolve));

/** `count` acquires; `started` is how many of them have been let start so far. */
function acquireMany(limit: AdaptiveLimit, count: number): { started: () => number } {
  let started = 0;
  for (let i = 0; i < count; i++)
    void limit.acquire().then(() => {
      started++;
    });
  return { started: () => started };
}

/** One request from start to end, with this outcome. */
async function request(limit: AdaptiveLimit, outcome: 'ok' | 'throttled' | 'failed', retryAfterMs = 0) {
  await limit.acquire();
  limit.release(outcome, retryAfterMs);
}

describe('AdaptiveLimit: the window', () => {
  it('starts at max: max requests start at once, the next only when one ends', async () => {
    const limit = new AdaptiveLimit(3, now);
    expect(limit.current).toBe(3);
    const a = acquireMany(limit, 5);
    await settled();
    expect(a.started()).toBe(3);
    limit.release('ok');
    await settled();
    expect(a.started()).toBe(4);
    limit.release('failed');
    await settled();
    expect(a.started()).toBe(5);
  });

  it("is halved by each 'throttled', and never goes below 1", async () => {
    const limit = new AdaptiveLimit(16, now);
    const seen: number[] = [];
    for (let i = 0; i < 6; i++) {
      await request(limit, 'throttled');
      seen.push(limit.current);
    }
    expect(seen).toEqual([8, 4, 2, 1, 1, 1]);
  });

  it('a halved window lets only that many start', async () => {
    const limit = new AdaptiveLimit(8, now);
    await request(limit, 'throttled');
    await request(limit, 'throttled');
    expect(limit.current).toBe(2);
    const a = acquireMany(limit, 5);
    await settled();
    expect(a.started()).toBe(2);
  });

  it("grows by 1/window on each 'ok' (additive increase), and never above max", async () => {
    const limit = new AdaptiveLimit(4, now);
    for (let i = 0; i < 3; i++) await request(limit, 'throttled');
    expect(limit.current).toBe(1);
    const seen: number[] = [];
    for (let i = 0; i < 12; i++) {
      await request(limit, 'ok');
      seen.push(limit.current);
    }
    // window 1 → 2 → 2.5 → 2.9 → 3.24 → 3.55 → 3.83 → 4.09, capped at 4 from there on.
    expect(seen).toEqual([2, 2, 2, 3, 3, 3, 4, 4, 4, 4, 4, 4]);
    const a = acquireMany(limit, 6);
    await settled();
    expect(a.started()).toBe(4);
  });

  it("'failed' leaves the window as it is", async () => {
    const limit = new AdaptiveLimit(8, now);
    await request(limit, 'throttled');
    for (let i = 0; i < 5; i++) await request(limit, 'failed');
    expect(limit.current).toBe(4);
  });
});

describe('AdaptiveLimit: Retry-After', () => {
  it('holds every start until Retry-After has passed, then lets the window start', async () => {
    const limit = new AdaptiveLimit(4, now);
    const first = acquireMany(limit, 2);
    await settled();
    expect(first.started()).toBe(2);

    limit.release('throttled', 1000); // window 2, nothing starts before t = 1000
    const held = acquireMany(limit, 3);
    await settled();
    expect(held.started()).toBe(0);

    advance(100);
    limit.release('ok'); // a success in the pause frees a slot, but does not end the pause
    await settled();
    expect(held.started()).toBe(0);

    advance(899); // t = 999
    await settled();
    expect(held.started()).toBe(0);

    advance(1); // t = 1000
    await settled();
    expect(limit.current).toBe(2);
    expect(held.started()).toBe(2);
  });

  it('a shorter Retry-After in the pause does not shorten it; a longer one lengthens it', async () => {
    const limit = new AdaptiveLimit(8, now);
    acquireMany(limit, 3);
    await settled();
    limit.release('throttled', 1000); // until 1000
    advance(500);
    limit.release('throttled', 100); // until 600: the pause stays until 1000
    const held = acquireMany(limit, 1);
    advance(500); // t = 1000
    await settled();
    expect(held.started()).toBe(1);

    limit.release('throttled', 2000); // until 3000
    limit.release('failed'); // nothing in flight now: only the pause holds the next start
    const later = acquireMany(limit, 1);
    advance(1999);
    await settled();
    expect(later.started()).toBe(0);
    advance(1);
    await settled();
    expect(later.started()).toBe(1);
  });

  it('the injected clock decides: a timer that fires before Retry-After by that clock waits again', async () => {
    const limit = new AdaptiveLimit(2, now);
    acquireMany(limit, 1);
    await settled();
    limit.release('throttled', 1000);
    const held = acquireMany(limit, 1);
    clock += 900; // the clock lags the timers by 100 ms
    vi.advanceTimersByTime(1000);
    await settled();
    expect(held.started()).toBe(0);
    expect(vi.getTimerCount()).toBe(1);
    advance(100); // the clock at 1000
    await settled();
    expect(held.started()).toBe(1);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('keeps one timer for the pause however many wait', async () => {
    const limit = new AdaptiveLimit(8, now);
    acquireMany(limit, 2);
    await settled();
    limit.release('throttled', 1000);
    limit.release('throttled', 1000);
    acquireMany(limit, 5);
    await settled();
    expect(vi.getTimerCount()).toBe(1);
  });
});

describe('AdaptiveLimit: wakeAll and close', () => {
  it('wakeAll lets every waiter go at once, drops the pause and its timer', async () => {
    const limit = new AdaptiveLimit(4, now);
    acquireMany(limit, 1);
    await settled();
    limit.release('throttled', 60_000);
    const held = acquireMany(limit, 5);
    await settled();
    expect(held.started()).toBe(0);
    expect(vi.getTimerCount()).toBe(1);

    limit.wakeAll();
    await settled();
    expect(held.started()).toBe(5); // all of them, past the window: the run is stopping
    expect(vi.getTimerCount()).toBe(0);

    // No pause left: once they have given their turns back, a new start is not held (no time passed).
    for (let i = 0; i < 5; i++) limit.release('failed');
    const next = acquireMany(limit, 1);
    await settled();
    expect(next.started()).toBe(1);
    expect(clock).toBe(0);
  });

  it('close leaves no timer', async () => {
    const limit = new AdaptiveLimit(2, now);
    acquireMany(limit, 1);
    await settled();
    limit.release('throttled', 5000);
    acquireMany(limit, 2);
    await settled();
    expect(vi.getTimerCount()).toBe(1);
    limit.close();
    expect(vi.getTimerCount()).toBe(0);
  });

  it('close with no pause is harmless', () => {
    const limit = new AdaptiveLimit(2, now);
    limit.close();
    expect(vi.getTimerCount()).toBe(0);
  });
});
