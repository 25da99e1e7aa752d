// The meter of a rollouts, eval or train rl invocation: always made (their summaries say what they
// spent), limited when --max-cost or --max-total-tokens is given. --max-cost needs a price for every
// model the run asks (the sampled checkpoint's, a judge's): one that has none is refused before any
// request, since a cost that cannot be counted cannot be kept under a limit.

import type { Context } from '../context.js';
import { UsageError } from '../errors/errors.js';
import { dollars } from '../output/dollars.js';
import { counted, thousands } from '../output/plural.js';
import { loadPrices, priceOf } from '../usage/prices.js';
import { Budget, type BudgetLimits, type Spent } from './budget.js';

export interface AskedModel {
  model: string;
  api: 'training' | 'inference';
}

/** The judge's model of a --reward judge:MODEL, as the Inference API is asked for it. */
export function judgeModelOf(reward: string | undefined): string | undefined {
  return reward?.startsWith('judge:') ? reward.slice('judge:'.length) : undefined;
}

/** The models a run asks: the checkpoints sampled, and the judge when there is one. */
export function modelsAsked(sampled: readonly string[], reward: string | undefined): AskedModel[] {
  const judge = judgeModelOf(reward);
  return [
    ...sampled.map((model) => ({ model, api: 'training' as const })),
    ...(judge ? [{ model: judge, api: 'inference' as const }] : []),
  ];
}

export function startBudget(ctx: Context, limits: BudgetLimits, models: readonly AskedModel[]): Budget {
  const table = loadPrices(ctx);
  const lookup = (model: string, api: AskedModel['api']) => priceOf(table, model, api);
  if (limits.maxCost !== undefined) {
    const unpriced = models.find((m) => !lookup(m.model, m.api));
    if (unpriced)
      throw new UsageError(
        `--max-cost: no price is known for ${unpriced.model} (the ${unpriced.api} API), so its cost cannot be counted; give its price in a prices file (aip usage prices says where) or use --max-total-tokens`,
      );
  }
  const budget = new Budget(limits, lookup);
  ctx.budget = budget;
  return budget;
}

/** What a run spent between two readings of its meter. */
export function spentSince(before: Spent, now: Spent): Spent {
  return {
    requests: now.requests - before.requests,
    prompt_tokens: now.prompt_tokens - before.prompt_tokens,
    completion_tokens: now.completion_tokens - before.completion_tokens,
    cost: before.cost === null || now.cost === null ? null : now.cost - before.cost,
  };
}

/** Several spends together (the checkpoints of an eval, the iterations of a run); undefined ones skipped. */
export function totalOf(spends: ReadonlyArray<Spent | undefined>): Spent {
  let total: Spent = { requests: 0, prompt_tokens: 0, completion_tokens: 0, cost: 0 };
  for (const spent of spends) if (spent) total = addSpent(total, spent);
  return total;
}

/** Two spends together (an iteration's parts over several --resume). */
export function addSpent(a: Spent | undefined, b: Spent): Spent {
  if (!a) return { ...b };
  return {
    requests: a.requests + b.requests,
    prompt_tokens: a.prompt_tokens + b.prompt_tokens,
    completion_tokens: a.completion_tokens + b.completion_tokens,
    cost: a.cost === null || b.cost === null ? null : a.cost + b.cost,
  };
}

/** "1,234 tokens in, 567 out, 12 requests, $0.0012" (cost unknown when a model has no price). */
export function describeSpent(spent: Spent): string {
  const cost = spent.cost === null ? 'cost unknown (a model has no price)' : dollars(spent.cost);
  return `${thousands(spent.prompt_tokens)} tokens in, ${thousands(spent.completion_tokens)} out, ${counted(spent.requests, 'request')}, ${cost}`;
}

/** A spend's cost as a cell: "$0.0123", or "unknown" when a model has no price. */
export function costCell(spent: Spent | undefined): string {
  if (!spent) return '';
  return spent.cost === null ? 'unknown' : dollars(spent.cost);
}

/** In and out together: what --max-total-tokens counts. */
export const tokensOf = (spent: Spent | undefined): number | undefined =>
  spent ? spent.prompt_tokens + spent.completion_tokens : undefined;
