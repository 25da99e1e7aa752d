// `aip usage` (`aip usage summary`): its flags, help and examples; the code that runs is summary.run.ts.

import { Option } from '@commander-js/extra-typings';
import type { Context } from '../../context.js';
import { USAGE_KEYS } from '../../usage/keys.js';
import { examples } from '../examples.js';
import { parseTime } from '../parsers.js';
import type { OptionsOf, Parent } from '../types.js';

function define(usage: Parent) {
  const summary = usage
    .command('summary', { isDefault: true })
    .description(
      'requests, samples, tokens in and out, and cost where prices are known, per model, command, job, run or day',
    )
    .option('--since <time>', 'only answers since: an age (7d, 24h, 30m) or an ISO date', parseTime)
    .option('--until <time>', 'only answers before: an age or an ISO date', parseTime)
    .addOption(
      new Option('--by <key>', 'one row per model, command, job, run (--resume joins) or day (UTC)')
        .choices(USAGE_KEYS)
        .default('model' as const),
    );
  return examples(summary, [
    'aip usage',
    'aip usage --since 7d --by day',
    'aip usage --by run --json',
    "aip usage --by job --jq '.total.cost'",
  ]);
}

export type SummaryOptions = OptionsOf<typeof define>;

export function registerSummary(usage: Parent, ctx: Context): void {
  define(usage).action(async (options) => {
    const { runSummary } = await import('./summary.run.js');
    await runSummary(ctx, options);
  });
}
