// --max-cost and --max-total-tokens of rollouts, eval and train rl: what this invocation may spend,
// checked before each request from what its answers have used so far. A --resume is an invocation of
// its own, with a budget of its own (what earlier parts spent is in `aip usage --by run`).
//
// Requests run many at once, so "spent so far" alone would let every request in flight go past the
// limit together. Each request is admitted only if what is spent, plus what the requests in flight
// and this one may use, stays within the limit, a request counted as the largest answered so far.
// Until the first answer nothing is known of a request's size, so one is sent alone. When no request
// fits, those in flight are awaited (their answers are kept) and the run stops: it ends within one
// request of the limit, above it only by how much a request outgrew every one before it.

import { BudgetReachedError } from '../errors/errors.js';

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

/** One admitted request: settled with its answer's usage, or cancelled when it got none. */
export interface Admission {
  settle(usage: { prompt_tokens: number; completion_tokens: number }): void;
  cancel(): void;
}

const dollars = (price: TokenPrice | undefined, prompt: number, completion: number): number | null =>
  price ? (prompt * price.input_per_mtok + completion * price.output_per_mtok) / 1e6 : null;

export class Budget {
  readonly spent: Spent = { requests: 0, prompt_tokens: 0, completion_tokens: 0, cost: 0 };
  private inFlight = 0;
  /** The largest request answered so far, in tokens and in dollars. */
  private largest = { tokens: 0, cost: 0 };
  private waiting: Array<() => void> = [];
  private reached: BudgetReachedError | undefined;

  constructor(
    readonly limits: BudgetLimits,
    private readonly price: PriceLookup,
  ) {}

  get limited(): boolean {
    return this.limits.maxCost !== undefined || this.limits.maxTotalTokens !== undefined;
  }

  /**
   * Waits until a request to `model` fits in what is left, and admits it; throws BudgetReachedError
   * when none will (after those in flight have been answered). `signal` ends the wait.
   */
  async admit(model: string, api: 'training' | 'inference', signal?: AbortSignal): Promise<Admission> {
    const price = this.price(model, api);
    for (;;) {
      if (this.reached) throw this.reached;
      signal?.throwIfAborted();
      const verdict = this.fits();
      if (verdict === 'yes') break;
      if (verdict === 'never') {
        this.reached = this.reachedError();
        this.wakeAll();
        throw this.reached;
      }
      await this.wait(signal);
    }
    this.inFlight++;
    let open = true;
    const close = () => {
      open = false;
      this.inFlight--;
      this.wakeAll();
    };
    return {
      settle: (usage) => {
        if (!open) return;
        this.add(price, usage);
        close();
      },
      cancel: () => {
        if (open) close();
      },
    };
  }

  private add(price: TokenPrice | undefined, usage: { prompt_tokens: number; completion_tokens: number }) {
    const tokens = usage.prompt_tokens + usage.completion_tokens;
    const cost = dollars(price, usage.prompt_tokens, usage.completion_tokens);
    const s = this.spent;
    s.requests++;
    s.prompt_tokens += usage.prompt_tokens;
    s.completion_tokens += usage.completion_tokens;
    s.cost = s.cost === null || cost === null ? null : s.cost + cost;
    this.largest.tokens = Math.max(this.largest.tokens, tokens);
    if (cost !== null) this.largest.cost = Math.max(this.largest.cost, cost);
  }

  /** 'yes': send it; 'wait': those in flight may leave room; 'never': nothing more fits. */
  private fits(): 'yes' | 'wait' | 'never' {
    if (!this.limited) return 'yes';
    const { maxCost, maxTotalTokens } = this.limits;
    const tokens = this.spent.prompt_tokens + this.spent.completion_tokens;
    const cost = this.spent.cost ?? 0;
    if (
      (maxTotalTokens !== undefined && tokens >= maxTotalTokens) ||
      (maxCost !== undefined && cost >= maxCost)
    )
      return this.inFlight > 0 ? 'wait' : 'never';
    // Nothing answered yet: one request at a time, to learn what one costs.
    if (this.spent.requests === 0) return this.inFlight === 0 ? 'yes' : 'wait';
    const n = this.inFlight + 1;
    const over =
      (maxTotalTokens !== undefined && tokens + n * this.largest.tokens > maxTotalTokens) ||
      (maxCost !== undefined && cost + n * this.largest.cost > maxCost);
    if (!over) return 'yes';
    return this.inFlight > 0 ? 'wait' : 'never';
  }

  private reachedError(): BudgetReachedError {
    const { maxCost, maxTotalTokens } = this.limits;
    const tokens = this.spent.prompt_tokens + this.spent.completion_tokens;
    const parts: string[] = [];
    if (maxTotalTokens !== undefined) parts.push(`${tokens} of --max-total-tokens ${maxTotalTokens} tokens`);
    if (maxCost !== undefined) parts.push(`$${(this.spent.cost ?? 0).toFixed(4)} of --max-cost ${maxCost}`);
    return new BudgetReachedError(
      `budget reached: ${this.spent.requests} requests used ${parts.join(' and ')}; no more requests were sent`,
    );
  }

  /** Until a request in flight ends (or `signal` aborts). */
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
