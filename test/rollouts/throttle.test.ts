// A rollout run's 429 decision (src/rollouts/throttle.ts) on a fake clock: the pause it takes, and
// when it gives up.

import { describe, expect, it } from 'vitest';
import { MAX_RETRY_AFTER_MS } from '../../src/api/retry.js';
import { THROTTLED_DEFAULT_PAUSE_MS, ThrottleWatch } from '../../src/rollouts/throttle.js';

describe('ThrottleWatch', () => {
  it("pauses for the server's Retry-After, a default without one, never more than the bound", () => {
    const watch = new ThrottleWatch(60_000, () => 0);
    expect(watch.decide(2500)).toEqual({ giveUp: false, pauseMs: 2500 });
    expect(watch.decide(undefined)).toEqual({ giveUp: false, pauseMs: THROTTLED_DEFAULT_PAUSE_MS });
    expect(watch.decide(3_600_000)).toEqual({ giveUp: false, pauseMs: MAX_RETRY_AFTER_MS });
  });

  it('gives up once only 429s have come for longer than its bound, and an answer starts the count again', () => {
    let now = 0;
    const watch = new ThrottleWatch(10_000, () => now);
    now = 10_000;
    expect(watch.decide(0).giveUp).toBe(false);
    now = 10_001;
    expect(watch.decide(0).giveUp).toBe(true);
    watch.answered();
    now = 20_000;
    expect(watch.decide(0).giveUp).toBe(false);
  });

  it('says the limit is not lifting with a 429 (exit 6) and what to do', () => {
    const error = new ThrottleWatch(300_000).notLifting();
    expect(error.status).toBe(429);
    expect(error.message).toBe(
      'the Training API answered only 429 (too many requests) for 300s: its limit is not lifting',
    );
    expect(error.hint).toMatch(/rate limits and quota/);
  });
});
