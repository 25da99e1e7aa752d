// `aip usage prices`: its help and examples; the code that runs is prices.run.ts.

import type { Context } from '../../context.js';
import { examples } from '../examples.js';
import type { Parent } from '../types.js';

function define(usage: Parent) {
  const prices = usage
    .command('prices')
    .description(
      "the prices in force ($ per million tokens): the platform's published ones and your prices file, with sources",
    );
  return examples(prices, ['aip usage prices', 'aip usage prices --json']);
}

export function registerPrices(usage: Parent, ctx: Context): void {
  define(usage).action(async () => {
    const { runPrices } = await import('./prices.run.js');
    await runPrices(ctx);
  });
}
