// The one retry loop (src/api/retrying.ts), driven by fake attempts and a fake sleep: how many times
// a request is sent, how long each pause is, what the notices say, and the 429 hook.

import { describe, expect, it } from 'vitest';
import { type Attempt, type AttemptFailure, type RetryPolicy, withRetries } from '../../src/api/retrying.js';

function policy(over: Partial<RetryPolicy> = {}) {
  const slept: number[] = [];
  const notices: string[] = [];
  const p: RetryPolicy = {
    maxRetries: 3,
    timeoutMs: 20_000,
    sleep: async (ms) => {
      slept.push(ms);
    },
    random: () => 0,
    onRetry: (notice) => notices.push(notice),
    ...over,
  };
  return { policy: p, slept, notices };
}

const failing = (over: Partial<AttemptFailure> = {}): Attempt<never> => ({
  ok: false,
  failure: {
    reason: 'HTTP 503',
    retryable: true,
    fail: (attempts, refused) => new Error(`failed after ${attempts}${refused ? `: ${refused}` : ''}`),
    ...over,
  },
});

/** Attempts that fail `failures` times as `failure` says, then succeed with the attempt number. */
function attempts(failures: number, failure: Partial<AttemptFailure> = {}) {
  const seen: number[] = [];
  const attempt = async (retry: number): Promise<Attempt<number>> => {
    seen.push(retry);
    return seen.length > failures ? { ok: true, value: seen.length } : failing(failure);
  };
  return { attempt, seen };
}

describe('withRetries', () => {
  for (const maxRetries of [0, 1, 2, 5]) {
    it(`--max-retries ${maxRetries}: exactly ${maxRetries + 1} attempts against a failure that never ends`, async () => {
      const { policy: p, slept } = policy({ maxRetries });
      const { attempt, seen } = attempts(Number.POSITIVE_INFINITY);
      await expect(withRetries(p, { where: 'GET /x' }, attempt)).rejects.toThrow(
        `failed after ${maxRetries + 1}`,
      );
      expect(seen).toEqual(Array.from({ length: maxRetries + 1 }, (_, i) => i));
      expect(slept).toHaveLength(maxRetries);
    });
  }

  it('a request sets its own budget, and the notices name that budget, not the default', async () => {
    const { policy: p, notices } = policy({ maxRetries: 3 });
    const { attempt, seen } = attempts(Number.POSITIVE_INFINITY);
    await expect(withRetries(p, { where: 'GET /x', retries: 1 }, attempt)).rejects.toThrow('failed after 2');
    expect(seen).toHaveLength(2);
    expect(notices).toEqual(['GET /x: HTTP 503; retrying in 0.5s (retry 1 of 1)']);
  });

  it('succeeds as soon as an attempt does, with no pause after it', async () => {
    const { policy: p, slept } = policy();
    const { attempt } = attempts(2);
    expect(await withRetries(p, { where: 'GET /x' }, attempt)).toBe(3);
    expect(slept).toHaveLength(2);
  });

  it('a failure that may not be sent again is not', async () => {
    const { policy: p, slept } = policy();
    const { attempt, seen } = attempts(5, { retryable: false });
    await expect(withRetries(p, { where: 'POST /x' }, attempt)).rejects.toThrow('failed after 1');
    expect(seen).toEqual([0]);
    expect(slept).toEqual([]);
  });

  it('backs off exponentially, each pause bounded by the timeout', async () => {
    const { policy: p, slept } = policy({ maxRetries: 6, timeoutMs: 3000 });
    await expect(withRetries(p, { where: 'GET /x' }, attempts(9).attempt)).rejects.toThrow();
    expect(slept).toEqual([500, 1000, 2000, 3000, 3000, 3000]);
  });

  it("a request's own timeout bounds its pauses", async () => {
    const { policy: p, slept } = policy({ maxRetries: 2, timeoutMs: 20_000 });
    await expect(withRetries(p, { where: 'GET /x', timeoutMs: 700 }, attempts(9).attempt)).rejects.toThrow();
    expect(slept).toEqual([500, 700]);
  });

  it("waits the server's Retry-After when within the bound", async () => {
    const { policy: p, slept } = policy();
    const { attempt } = attempts(1, { retryAfterMs: 4321 });
    await withRetries(p, { where: 'GET /x' }, attempt);
    expect(slept).toEqual([4321]);
  });

  it('does not wait a Retry-After beyond --timeout: the error says what the server asked', async () => {
    const { policy: p, slept } = policy({ timeoutMs: 2000 });
    const { attempt, seen } = attempts(1, { retryAfterMs: 50_000 });
    await expect(withRetries(p, { where: 'GET /x' }, attempt)).rejects.toThrow(
      'failed after 1: the server asks to retry after 50s, beyond --timeout (2s): not waited',
    );
    expect(seen).toHaveLength(1);
    expect(slept).toEqual([]);
  });

  it('a 429 goes to the throttle hook when there is one, and is not counted as a retry', async () => {
    const { policy: p, slept } = policy({ maxRetries: 1 });
    const told: Array<number | undefined> = [];
    const { attempt, seen } = attempts(5, { throttled: true, retryAfterMs: 250 });
    const value = await withRetries(
      p,
      { where: 'POST /x', onThrottled: async (ms) => void told.push(ms) },
      attempt,
    );
    expect(value).toBe(6);
    expect(seen).toEqual([0, 0, 0, 0, 0, 0]);
    expect(told).toEqual([250, 250, 250, 250, 250]);
    expect(slept).toEqual([]);
  });

  it('a throttle hook that throws ends the request with its error', async () => {
    const { policy: p } = policy();
    const { attempt, seen } = attempts(5, { throttled: true });
    const stop = new Error('the limit is not lifting');
    await expect(
      withRetries(p, { where: 'POST /x', onThrottled: async () => Promise.reject(stop) }, attempt),
    ).rejects.toBe(stop);
    expect(seen).toHaveLength(1);
  });

  it('without a hook a 429 is retried as any retryable failure', async () => {
    const { policy: p } = policy({ maxRetries: 2 });
    const { attempt, seen } = attempts(9, { throttled: true, retryAfterMs: 0 });
    await expect(withRetries(p, { where: 'GET /x' }, attempt)).rejects.toThrow('failed after 3');
    expect(seen).toHaveLength(3);
  });

  it('Ctrl-C during a pause ends the request with the signal reason, and nothing more is sent', async () => {
    const controller = new AbortController();
    const reason = new Error('interrupted');
    const { policy: p } = policy({
      sleep: async () => {
        controller.abort(reason);
      },
    });
    const { attempt, seen } = attempts(9);
    await expect(withRetries(p, { where: 'GET /x', signal: controller.signal }, attempt)).rejects.toBe(
      reason,
    );
    expect(seen).toHaveLength(1);
  });
});
