import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Budget } from '../../src/budget/budget.js';
import { BudgetReachedError } from '../../src/errors/errors.js';

const price = { input_per_mtok: 1, output_per_mtok: 3 };
const priced = () => price;

/** Runs `workers` loops of admit → a few ticks → settle, until the budget says no; the usage per request from `sizes`. */
async function drain(budget: Budget, workers: number, sizes: readonly number[]) {
  let next = 0;
  let refused = 0;
  const worker = async () => {
    for (;;) {
      let admission: Awaited<ReturnType<Budget['admit']>>;
      try {
        admission = await budget.admit('m', 'training');
      } catch (error) {
        expect(error).toBeInstanceOf(BudgetReachedError);
        refused++;
        return;
      }
      const size = sizes[next++ % sizes.length]!;
      for (let i = 0; i < (size % 5) + 1; i++) await Promise.resolve();
      admission.settle({ prompt_tokens: size, completion_tokens: size });
    }
  };
  await Promise.all(Array.from({ length: workers }, worker));
  return { refused };
}

describe('Budget', () => {
  it('admits everything at once when no limit is given, and counts it', async () => {
    const budget = new Budget({}, priced);
    const all = await Promise.all([1, 2, 3].map(() => budget.admit('m', 'training')));
    for (const a of all) a.settle({ prompt_tokens: 10, completion_tokens: 5 });
    expect(budget.spent).toMatchObject({ requests: 3, prompt_tokens: 30, completion_tokens: 15 });
    expect(budget.spent.cost).toBeCloseTo(0.000075, 12);
  });

  it('sends one request alone until one is answered', async () => {
    const budget = new Budget({ maxTotalTokens: 1000 }, priced);
    const first = await budget.admit('m', 'training');
    let second = false;
    const waiting = budget.admit('m', 'training').then((a) => {
      second = true;
      return a;
    });
    await new Promise((resolve) => setImmediate(resolve));
    expect(second).toBe(false);
    first.settle({ prompt_tokens: 10, completion_tokens: 10 });
    (await waiting).settle({ prompt_tokens: 1, completion_tokens: 1 });
    expect(second).toBe(true);
  });

  // Requests are counted as the largest answered so far: while none outgrows it, a run ends within
  // one request of the limit (the first, sent alone, may pass it by itself).
  it('stops within one request of a token limit, whatever the concurrency, when no request outgrows the first', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 16 }),
        fc.array(fc.integer({ min: 1, max: 400 }), { minLength: 1, maxLength: 20 }),
        fc.integer({ min: 1, max: 50_000 }),
        async (workers, rest, limit) => {
          const sizes = [Math.max(...rest), ...rest];
          const budget = new Budget({ maxTotalTokens: limit }, priced);
          await drain(budget, workers, sizes);
          const spent = budget.spent.prompt_tokens + budget.spent.completion_tokens;
          const largest = 2 * sizes[0]!;
          expect(spent).toBeLessThanOrEqual(Math.max(limit, largest));
          expect(spent + largest).toBeGreaterThan(limit);
        },
      ),
    );
  });

  // Requests that outgrow every one before them can take it further: by at most their excess, and
  // never with a whole request's room left.
  it('with requests of any size, ends past the limit by no more than the requests in flight can outgrow', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 16 }),
        fc.array(fc.integer({ min: 1, max: 400 }), { minLength: 1, maxLength: 20 }),
        fc.integer({ min: 1, max: 50_000 }),
        async (workers, sizes, limit) => {
          const budget = new Budget({ maxTotalTokens: limit }, priced);
          await drain(budget, workers, sizes);
          const spent = budget.spent.prompt_tokens + budget.spent.completion_tokens;
          const largest = 2 * Math.max(...sizes);
          expect(spent).toBeLessThanOrEqual(limit + workers * largest);
          expect(spent + largest).toBeGreaterThan(limit);
        },
      ),
    );
  });

  it('with equal requests, never goes past a cost limit', async () => {
    const budget = new Budget({ maxCost: 0.01 }, priced);
    await drain(budget, 8, [100]);
    // 100 in at $1/M and 100 out at $3/M: $0.0004 a request, so 25 fit exactly.
    expect(budget.spent.requests).toBe(25);
    expect(budget.spent.cost!).toBeLessThanOrEqual(0.01 + 1e-12);
  });

  it('keeps refusing once reached, and says what was spent', async () => {
    const budget = new Budget({ maxTotalTokens: 10 }, priced);
    (await budget.admit('m', 'training')).settle({ prompt_tokens: 8, completion_tokens: 4 });
    await expect(budget.admit('m', 'training')).rejects.toThrow(
      /budget reached: 1 requests used 12 of --max-total-tokens 10 tokens/,
    );
    await expect(budget.admit('m', 'training')).rejects.toBeInstanceOf(BudgetReachedError);
  });

  it('a cancelled request frees its room and costs nothing', async () => {
    const budget = new Budget({ maxTotalTokens: 100 }, priced);
    (await budget.admit('m', 'training')).cancel();
    expect(budget.spent.requests).toBe(0);
    (await budget.admit('m', 'training')).settle({ prompt_tokens: 1, completion_tokens: 1 });
    expect(budget.spent.requests).toBe(1);
  });

  it('a wait ends when its signal aborts', async () => {
    const budget = new Budget({ maxTotalTokens: 100 }, priced);
    await budget.admit('m', 'training');
    const stop = new AbortController();
    const waiting = budget.admit('m', 'training', stop.signal);
    stop.abort();
    await expect(waiting).rejects.toThrow();
  });

  it('cost is unknown, not zero, once a model without a price answered', async () => {
    const budget = new Budget({ maxTotalTokens: 100 }, () => undefined);
    (await budget.admit('m', 'inference')).settle({ prompt_tokens: 1, completion_tokens: 1 });
    expect(budget.spent.cost).toBeNull();
  });
});
