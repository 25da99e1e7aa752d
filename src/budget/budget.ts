// --max-cost and --max-total-tokens of rollouts, eval and train rl: what this invocation may spend,
// checked from what its answers have used so far. A --resume is an invocation of its own, with a budget
// of its own (what earlier parts spent is in `aip usage --by run`).
//
// The unit is a trajectory group, not a request: a group is written whole or not at all, so a group cut
// short by the budget would be paid for and thrown away (and paid again by --resume). A group is
// admitted before its first request, with a reservation of every request it will make (its K samples,
// and its judge's verdicts): it is admitted only if what is spent, plus what the reservations in flight
// and this one may still use, stays within the limit, a request counted as the largest answered so
// far. Until the first answer nothing is known of a request's size, so one group goes alone. When no
// group fits, those in flight finish (every request they make is answered and kept) and the run stops:
// it ends less than one group short of the limit, and past it only by as much as requests outgrew the
// largest answered before them.

import { BudgetReachedError } from '../errors/errors.js';
import { dollars } from '../output/dollars.js';
import { thousands } from '../output/plural.js';

export interface BudgetLimits {
  /** Dollars. */
  maxCost?: number;
  maxTotalTokens?: number;
}

/** $ per million tokens, in and out. */
export interface TokenPrice {
  input_per_mtok: number;
  output_per_mtok: number;
}

export type PriceLookup = (model: string, api: 'training' | 'inference') => TokenPrice | undefined;

export interface Spent {
  requests: number;
  prompt_tokens: number;
  completion_tokens: number;
  /** Dollars; null when a model's price is not known. */
  cost: number | null;
}

export interface Answered {
  prompt_tokens: number;
  completion_tokens: number;
  /** Whether the answer said what it used at all (a server may leave `usage` out). */
  reported: boolean;
}

/** The requests of one admitted group: counted down as they are answered, given back when it ends. */
export interface Reservation {
  /** `n` of its requests were answered (or will not be made). */
  answered(n?: number): void;
  /** The group ended (written, or the run stopped): what it did not use is free again. */
  release(): void;
}

const costAt = (price: TokenPrice | undefined, prompt: number, completion: number): number | null =>
  price ? (prompt * price.input_per_mtok + completion * price.output_per_mtok) / 1e6 : null;

export class Budget {
  readonly spent: Spent = { requests: 0, prompt_tokens: 0, completion_tokens: 0, cost: 0 };
  /** Requests reserved by the groups in flight and not answered yet. */
  private outstanding = 0;
  /** The largest request answered so far, in tokens and in dollars. */
  private largest = { tokens: 0, cost: 0 };
  private unreported = 0;
  private waiting: Array<() => void> = [];
  private reached: BudgetReachedError | undefined;

  constructor(
    readonly limits: BudgetLimits,
    private readonly price: PriceLookup,
  ) {}

  get limited(): boolean {
    return this.limits.maxCost !== undefined || this.limits.maxTotalTokens !== undefined;
  }

  /** An answer's usage (every metered request's, admitted by a reservation or not). */
  add(model: string, api: 'training' | 'inference', usage: Answered): void {
    const tokens = usage.prompt_tokens + usage.completion_tokens;
    const cost = costAt(this.price(model, api), usage.prompt_tokens, usage.completion_tokens);
    const s = this.spent;
    s.requests++;
    s.prompt_tokens += usage.prompt_tokens;
    s.completion_tokens += usage.completion_tokens;
    s.cost = s.cost === null || cost === null ? null : s.cost + cost;
    this.largest.tokens = Math.max(this.largest.tokens, tokens);
    if (cost !== null) this.largest.cost = Math.max(this.largest.cost, cost);
    if (!usage.reported) this.unreported++;
    this.wakeAll();
  }

  /**
   * Waits until a group of `requests` requests fits in what is left, and reserves them; throws
   * BudgetReachedError when none will (after the groups in flight have ended). `signal` ends the wait.
   */
  async reserve(requests: number, signal?: AbortSignal): Promise<Reservation> {
    for (;;) {
      if (this.reached) throw this.reached;
      signal?.throwIfAborted();
      const verdict = this.fits(requests);
      if (verdict === 'yes') break;
      if (verdict === 'never') {
        this.reached = this.reachedError();
        this.wakeAll();
        throw this.reached;
      }
      await this.wait(signal);
    }
    let left = requests;
    this.outstanding += requests;
    const free = (n: number) => {
      const freed = Math.min(n, left);
      left -= freed;
      this.outstanding -= freed;
      this.wakeAll();
    };
    return { answered: (n = 1) => free(n), release: () => free(left) };
  }

  /** 'yes': reserve it; 'wait': groups in flight may leave room; 'never': nothing more fits. */
  private fits(requests: number): 'yes' | 'wait' | 'never' {
    if (!this.limited) return 'yes';
    const busy = this.outstanding > 0 ? 'wait' : 'never';
    // Answers that say nothing of their usage cannot be counted against a limit.
    if (this.unreported > 0) return busy;
    const { maxCost, maxTotalTokens } = this.limits;
    const tokens = this.spent.prompt_tokens + this.spent.completion_tokens;
    const cost = this.spent.cost ?? 0;
    if (
      (maxTotalTokens !== undefined && tokens >= maxTotalTokens) ||
      (maxCost !== undefined && cost >= maxCost)
    )
      return busy;
    // Nothing answered yet: one group at a time, to learn what a request costs.
    if (this.spent.requests === 0) return this.outstanding === 0 ? 'yes' : 'wait';
    const n = this.outstanding + requests;
    const over =
      (maxTotalTokens !== undefined && tokens + n * this.largest.tokens > maxTotalTokens) ||
      (maxCost !== undefined && cost + n * this.largest.cost > maxCost);
    return over ? busy : 'yes';
  }

  private reachedError(): BudgetReachedError {
    const { maxCost, maxTotalTokens } = this.limits;
    const tokens = this.spent.prompt_tokens + this.spent.completion_tokens;
    if (this.unreported > 0)
      return new BudgetReachedError(
        `${this.unreported} of ${this.spent.requests} answers did not say how many tokens they used, so the budget cannot be kept; no more requests were sent`,
      );
    const parts: string[] = [];
    if (maxTotalTokens !== undefined)
      parts.push(`${thousands(tokens)} of --max-total-tokens ${thousands(maxTotalTokens)} tokens`);
    if (maxCost !== undefined) parts.push(`${dollars(this.spent.cost ?? 0)} of --max-cost ${maxCost}`);
    return new BudgetReachedError(
      `budget reached: ${this.spent.requests} requests used ${parts.join(' and ')}; no more requests were sent`,
    );
  }

  /** Until a request is answered or a group ends (or `signal` aborts). */
  private wait(signal: AbortSignal | undefined): Promise<void> {
    return new Promise<void>((resolve) => {
      const done = () => {
        signal?.removeEventListener('abort', done);
        resolve();
      };
      this.waiting.push(done);
      signal?.addEventListener('abort', done, { once: true });
    });
  }

  private wakeAll(): void {
    for (const wake of this.waiting.splice(0)) wake();
  }
}
