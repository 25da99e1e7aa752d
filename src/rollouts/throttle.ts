// What a rollout run does with a 429 (the retry hook of api/retrying.ts): it is not a retry, the
// request is asked again once the adaptive limit gives it a turn, after the server's pause, so a
// burst of 429s costs time, never a sample. Only when 429s alone have come for a long time does the
// run stop: the limit is not lifting (a spent quota answers 429 too), and slowing down further would
// only hang the run.

import { MAX_RETRY_AFTER_MS } from '../api/retry.js';
import { ApiError } from '../errors/errors.js';

/**
 * 429s with no answer in between for this long (or for --timeout, when given): the run stops,
 * keeping what it wrote.
 */
export const THROTTLED_GIVE_UP_MS = 5 * 60_000;

/** When no Retry-After is given, the pause before a 429'd request is asked again. */
export const THROTTLED_DEFAULT_PAUSE_MS = 1000;

/** Tracks answers against 429s, to tell when the limit is not lifting. */
export class ThrottleWatch {
  private lastAnswer: number;

  constructor(
    readonly giveUpMs: number,
    private readonly now: () => number = Date.now,
  ) {
    this.lastAnswer = now();
  }

  /** A request was answered (whatever the answer said, it was not a 429). */
  answered(): void {
    this.lastAnswer = this.now();
  }

  /** After a 429: whether to stop the run, its pause otherwise (bounded as every retry's is). */
  decide(retryAfterMs: number | undefined): { giveUp: true } | { giveUp: false; pauseMs: number } {
    if (this.now() - this.lastAnswer > this.giveUpMs) return { giveUp: true };
    // A larger pause, or a date far ahead, would hold the run for hours, past what a timer can count.
    return {
      giveUp: false,
      pauseMs: Math.min(retryAfterMs ?? THROTTLED_DEFAULT_PAUSE_MS, MAX_RETRY_AFTER_MS),
    };
  }

  /** The error that stops the run; `service` is the API that answered 429 (a judge's: the Inference API). */
  notLifting(service = 'the Training API'): ApiError {
    return new ApiError(
      `${service} answered only 429 (too many requests) for ${this.giveUpMs / 1000}s: its limit is not lifting`,
      429,
      undefined,
      { hint: "check the project's rate limits and quota, then carry on" },
    );
  }
}
