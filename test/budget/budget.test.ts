import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Budget } from '../../src/budget/budget.js';
import { BudgetReachedError } from '../../src/errors/errors.js';

const price = { input_per_mtok: 1, output_per_mtok: 3 };
const priced = () => price;
const used = (n: number) => ({ prompt_tokens: n, completion_tokens: n, reported: true });

/**
 * `workers` loops of: reserve a group of `k` requests, answer each after a few ticks (sizes from
 * `sizes`, in turn), end the group; until the budget says no. The groups completed.
 */
async function drain(budget: Budget, workers: number, k: number, sizes: readonly number[]): Promise<number> {
  let next = 0;
  let groups = 0;
  const worker = async () => {
    for (;;) {
      let reservation: Awaited<ReturnType<Budget['reserve']>>;
      try {
        reservation = await budget.reserve(k);
      } catch (error) {
        expect(error).toBeInstanceOf(BudgetReachedError);
        return;
      }
      for (let i = 0; i < k; i++) {
        const size = sizes[next++ % sizes.length]!;
        for (let t = 0; t < (size % 5) + 1; t++) await Promise.resolve();
        budget.add('m', 'training', used(size));
        reservation.answered();
      }
      reservation.release();
      groups++;
    }
  };
  await Promise.all(Array.from({ length: workers }, worker));
  return groups;
}

describe('Budget', () => {
  it('reserves at once and counts everything when no limit is given', async () => {
    const budget = new Budget({}, priced);
    await Promise.all([1, 2, 3].map(() => budget.reserve(4)));
    for (let i = 0; i < 3; i++)
      budget.add('m', 'training', { prompt_tokens: 10, completion_tokens: 5, reported: true });
    expect(budget.spent).toMatchObject({ requests: 3, prompt_tokens: 30, completion_tokens: 15 });
    expect(budget.spent.cost).toBeCloseTo(0.000075, 12);
  });

  it('admits one group alone until a request is answered', async () => {
    const budget = new Budget({ maxTotalTokens: 1000 }, priced);
    const first = await budget.reserve(2);
    let second = false;
    const waiting = budget.reserve(2).then((r) => {
      second = true;
      return r;
    });
    await new Promise((resolve) => setImmediate(resolve));
    expect(second).toBe(false);
    budget.add('m', 'training', used(5));
    first.answered();
    await waiting;
    expect(second).toBe(true);
  });

  // Requests are counted as the largest answered so far: while none outgrows the first group's, a run
  // ends with less than one group's room left, and never past the limit (the first group, sent alone,
  // may pass it by itself).
  it('ends within one group of a token limit, whatever the concurrency and the group size', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 16 }),
        fc.integer({ min: 1, max: 8 }),
        fc.array(fc.integer({ min: 1, max: 400 }), { minLength: 1, maxLength: 20 }),
        fc.integer({ min: 1, max: 50_000 }),
        async (workers, k, rest, limit) => {
          const sizes = [Math.max(...rest), ...rest];
          const budget = new Budget({ maxTotalTokens: limit }, priced);
          const groups = await drain(budget, workers, k, sizes);
          const spent = budget.spent.prompt_tokens + budget.spent.completion_tokens;
          const group = k * 2 * sizes[0]!;
          expect(budget.spent.requests).toBe(groups * k);
          expect(spent).toBeLessThanOrEqual(
            Math.max(limit, 2 * sizes[0]! * Math.min(k, budget.spent.requests)),
          );
          expect(spent + group).toBeGreaterThan(limit);
        },
      ),
    );
  });

  it('with requests of any size, ends with less than one group of room and every group whole', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 16 }),
        fc.integer({ min: 1, max: 8 }),
        fc.array(fc.integer({ min: 1, max: 400 }), { minLength: 1, maxLength: 20 }),
        fc.integer({ min: 1, max: 50_000 }),
        async (workers, k, sizes, limit) => {
          const budget = new Budget({ maxTotalTokens: limit }, priced);
          const groups = await drain(budget, workers, k, sizes);
          const spent = budget.spent.prompt_tokens + budget.spent.completion_tokens;
          expect(budget.spent.requests).toBe(groups * k);
          expect(spent + k * 2 * Math.max(...sizes)).toBeGreaterThan(limit);
          expect(spent).toBeLessThanOrEqual(limit + workers * k * 2 * Math.max(...sizes));
        },
      ),
    );
  });

  it('with equal requests, never goes past a cost limit', async () => {
    const budget = new Budget({ maxCost: 0.01 }, priced);
    await drain(budget, 8, 1, [100]);
    // 100 in at $1/M and 100 out at $3/M: $0.0004 a request, so 25 fit exactly.
    expect(budget.spent.requests).toBe(25);
    expect(budget.spent.cost!).toBeLessThanOrEqual(0.01 + 1e-12);
  });

  it('keeps refusing once reached, and says what was spent', async () => {
    const budget = new Budget({ maxTotalTokens: 10 }, priced);
    const r = await budget.reserve(1);
    budget.add('m', 'training', { prompt_tokens: 8, completion_tokens: 4, reported: true });
    r.release();
    await expect(budget.reserve(1)).rejects.toThrow(
      /budget reached: 1 requests used 12 of --max-total-tokens 10 tokens/,
    );
    await expect(budget.reserve(1)).rejects.toBeInstanceOf(BudgetReachedError);
  });

  it('stops when answers do not say what they used: such a budget cannot be kept', async () => {
    const budget = new Budget({ maxTotalTokens: 1000 }, priced);
    const r = await budget.reserve(1);
    budget.add('m', 'training', { prompt_tokens: 0, completion_tokens: 0, reported: false });
    r.release();
    await expect(budget.reserve(1)).rejects.toThrow(/1 of 1 answers did not say how many tokens they used/);
  });

  it('a wait ends when its signal aborts', async () => {
    const budget = new Budget({ maxTotalTokens: 100 }, priced);
    await budget.reserve(1);
    const stop = new AbortController();
    const waiting = budget.reserve(1, stop.signal);
    stop.abort();
    await expect(waiting).rejects.toThrow();
  });

  it('cost is unknown, not zero, once a model without a price answered', () => {
    const budget = new Budget({ maxTotalTokens: 100 }, () => undefined);
    budget.add('m', 'inference', used(1));
    expect(budget.spent.cost).toBeNull();
  });
});
