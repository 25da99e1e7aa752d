// The token usage an answer reports, as the history and the budgets count it. The numbers come from a
// server: only whole, non-negative, safe integers are believed; anything else counts as 0 (the request
// is still counted), so a hostile or broken answer can neither make a total negative nor NaN.

import { isObject } from '../lib/json.js';

export interface AnswerUsage {
  prompt_tokens: number;
  completion_tokens: number;
  /** Choices in the answer (at least 1 when it was answered). */
  samples: number;
}

const count = (value: unknown): number =>
  typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? value : 0;

export function usageOf(answer: unknown): AnswerUsage {
  const usage = isObject(answer) && isObject(answer.usage) ? answer.usage : {};
  const choices = isObject(answer) && Array.isArray(answer.choices) ? answer.choices.length : 0;
  return {
    prompt_tokens: count(usage.prompt_tokens),
    completion_tokens: count(usage.completion_tokens),
    samples: Math.max(1, choices),
  };
}

/** Whether the answer said what it used: both counts given, as numbers. */
export function usageReported(answer: unknown): boolean {
  const usage = isObject(answer) && isObject(answer.usage) ? answer.usage : undefined;
  return typeof usage?.prompt_tokens === 'number' && typeof usage.completion_tokens === 'number';
}
