// The one retry loop of everything aip sends, for both clients (http.ts, and the openai SDK through
// openai.ts, whose own retries are off). Each caller judges its failed attempts (what failed, whether
// it may be sent again, what the server asked for); this loop decides whether and when to try again,
// so that --max-retries N means N retries, and the pause rules of retry.ts hold, on every path.
//
// A 429 can be handed to whoever adapts concurrency (rollouts' adaptive limit, through `onThrottled`):
// that is not a retry, the adapter decides when to send again or stops by throwing.

import { backoffDelay, maxPauseMs, retryAfterRefused } from './retry.js';

export interface RetryPolicy {
  /** --max-retries: retries after the first attempt. */
  maxRetries: number;
  /** --timeout: each pause before a retry is bounded by it (retry.ts maxPauseMs). */
  timeoutMs: number;
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  random: () => number;
  /** Told about each retry before its pause (shown on stderr). */
  onRetry?: (notice: string) => void;
}

/** One failed attempt, as its sender judged it. */
export interface AttemptFailure {
  /** For the notice: "HTTP 503", "could not connect (ECONNREFUSED)". */
  reason: string;
  /** Transient, and safe to send again (idempotent, never reached the server, or not yet begun). */
  retryable: boolean;
  /** The pause the server asked for (Retry-After), in ms. */
  retryAfterMs?: number;
  /** A 429: `onThrottled`, when given, takes it instead of a retry. */
  throttled?: boolean;
  /**
   * The error that ends the request after `attempts` attempts; `refused` says why a Retry-After was
   * not waited out, when that is why.
   */
  fail(attempts: number, refused?: string): unknown;
}

export type Attempt<T> = { ok: true; value: T } | { ok: false; failure: AttemptFailure };

export interface RetryRun {
  /** "GET /preview/models", for the notices. */
  where: string;
  /** This request's own budget (a polling loop that retries on its own sets 0). */
  retries?: number;
  /** This request's own per-attempt timeout, which bounds its pauses instead of the policy's. */
  timeoutMs?: number;
  /** Ctrl-C: cuts a pause short and ends the request with the signal's reason. */
  signal?: AbortSignal;
  /** Resolves when a 429'd request may be sent again (not counted as a retry); throws to give up. */
  onThrottled?: (retryAfterMs: number | undefined) => Promise<void>;
}

/** Sends with `attempt(retry)` until it succeeds, a failure may not be retried, or the budget is spent. */
export async function withRetries<T>(
  policy: RetryPolicy,
  run: RetryRun,
  attempt: (retry: number) => Promise<Attempt<T>>,
): Promise<T> {
  const budget = run.retries ?? policy.maxRetries;
  const timeoutMs = run.timeoutMs ?? policy.timeoutMs;
  for (let retry = 0; ; ) {
    const result = await attempt(retry);
    if (result.ok) return result.value;
    const failure = result.failure;
    if (failure.throttled && run.onThrottled) {
      await run.onThrottled(failure.retryAfterMs);
      continue;
    }
    if (!failure.retryable || retry >= budget) throw failure.fail(retry + 1);
    // Every pause is bounded by --timeout (and a minute): a longer Retry-After is not slept, the
    // request ends at once saying what the server asked for.
    const longest = maxPauseMs(timeoutMs);
    const asked = failure.retryAfterMs;
    if (asked !== undefined && asked > longest)
      throw failure.fail(retry + 1, retryAfterRefused(asked, timeoutMs));
    const delay = asked ?? Math.min(backoffDelay(retry, policy.random), longest);
    policy.onRetry?.(
      `${run.where}: ${failure.reason}; retrying in ${(delay / 1000).toFixed(1)}s (retry ${retry + 1} of ${budget})`,
    );
    await policy.sleep(delay, run.signal);
    if (run.signal?.aborted) throw run.signal.reason;
    retry++;
  }
}
