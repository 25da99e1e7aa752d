// `aip usage`: bare, what aip spent (its `summary` verb is the default); `aip usage prices`, the price
// table in force.

import type { Context } from '../../context.js';
import { examples } from '../examples.js';
import type { Parent } from '../types.js';
import { verbs } from '../verbs.js';
import { registerPrices } from './prices.js';
import { registerSummary } from './summary.js';

export function registerUsage(program: Parent, ctx: Context): void {
  const usage = examples(
    program.command('usage').description('tokens, requests and cost of what aip did, from its history'),
    ['aip usage --since 7d', 'aip usage --by day --json', 'aip usage prices'],
  );
  verbs(usage, () => {
    registerSummary(usage, ctx);
    registerPrices(usage, ctx);
  });
}
