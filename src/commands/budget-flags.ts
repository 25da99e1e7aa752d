// --max-cost and --max-total-tokens, the budgets rollouts, eval and train rl share (budget/budget.ts).
// --max-tokens already means tokens per reply (a request parameter), hence --max-total-tokens.

import { type Command, InvalidArgumentError, type OptionValues } from '@commander-js/extra-typings';
import { parseWhole } from './parsers.js';

/** Dollars: a positive number ("5", "0.25", "$5"). */
export function parseDollars(value: string): number {
  const text = value.trim().replace(/^\$/, '');
  const n = Number(text);
  if (!/^\d+(\.\d+)?$/.test(text) || !(n > 0) || !Number.isFinite(n))
    throw new InvalidArgumentError('--max-cost: expected dollars, more than 0 (e.g. 5 or 0.25)');
  return n;
}

export function budgetFlags<Args extends unknown[], Opts extends OptionValues>(command: Command<Args, Opts>) {
  return command
    .option(
      '--max-cost <dollars>',
      'start no more trajectory groups once another could take what this run spent past this many dollars; exit 9 (every model it asks must have a price: aip usage prices)',
      parseDollars,
    )
    .option(
      '--max-total-tokens <n>',
      "the same for tokens: in and out, of every request (samples and a judge's verdicts)",
      parseWhole('--max-total-tokens', 1, Number.MAX_SAFE_INTEGER),
    );
}
