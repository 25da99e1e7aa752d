// `aip usage`: the answers' usage in the history (history/query.ts folds the journal first), summed per
// --by key (usage/aggregate.ts), with cost where every price is known. On a terminal a table with a
// total row; piped, the groups as tab-separated rows (no header, no total: each line is a group, so a
// script can sum or plot them); --json the groups, the total and every price used, with its source.

import type { Context } from '../../context.js';
import { readUsageRows } from '../../history/query.js';
import { printTable } from '../../output/table.js';
import { aggregateUsage, costText, type UsageGroup, type UsageReport } from '../../usage/aggregate.js';
import { STORAGE_PRICING_SOURCE } from '../../usage/price-table.js';
import { loadPrices, type PriceTable } from '../../usage/prices.js';
import type { SummaryOptions } from './summary.js';

/** Counts with thousands separators on a terminal; whole digits when piped. */
const count = (n: number, tty: boolean) => (tty ? n.toLocaleString('en-US') : String(n));

/** What aip cannot count from answers: training (free in the preview) and checkpoint storage. */
function otherCosts(table: PriceTable) {
  return [
    {
      kind: 'training',
      cost: 0,
      note: 'training is free during the public preview',
      source: table.training.source,
    },
    {
      kind: 'storage',
      cost: null,
      note: 'checkpoint storage is billed monthly by total size (at least 5 GB free); no price per GB is published',
      source: STORAGE_PRICING_SOURCE,
    },
  ];
}

function printReport(ctx: Context, report: UsageReport, filtered: boolean, pricesFile: string): void {
  const { io } = ctx;
  const tty = io.isStdoutTTY;
  const rows: UsageGroup[] = [...report.groups];
  if (tty && rows.length > 0) rows.push(report.total);
  const isTotal = (g: UsageGroup) => g === report.total;
  printTable(
    io,
    rows,
    [
      {
        header: report.by,
        value: (g) => g.key,
        color: (text, g, style) => (isTotal(g) ? style.bold(text) : text),
      },
      { header: 'requests', value: (g) => count(g.requests, tty) },
      { header: 'samples', value: (g) => count(g.samples, tty) },
      { header: 'tokens in', value: (g) => count(g.prompt_tokens, tty) },
      { header: 'tokens out', value: (g) => count(g.completion_tokens, tty) },
      {
        header: 'cost',
        value: (g) => costText(g),
        color: (text, _g, style) => (text.startsWith('$') ? text : style.yellow(text)),
      },
    ],
    {
      empty: filtered
        ? 'No usage in the history in that time'
        : 'No usage in the history yet: it keeps the tokens of every answer aip is given',
    },
  );
  const unpriced = report.total.unpriced_models;
  if (unpriced.length > 0)
    io.info(
      `no price is known for ${unpriced.join(', ')}: ${unpriced.length === 1 ? 'its' : 'their'} cost is not counted; give prices in ${pricesFile} (aip usage prices, docs/usage.md)`,
    );
}

export async function runSummary(ctx: Context, options: SummaryOptions): Promise<void> {
  const table = loadPrices(ctx);
  const rows = await readUsageRows(ctx, { since: options.since, until: options.until });
  const report = aggregateUsage(rows, options.by, table);
  if (ctx.json) {
    ctx.io.json({
      by: report.by,
      since: options.since ?? null,
      until: options.until ?? null,
      groups: report.groups,
      total: report.total,
      prices: report.prices,
      other_costs: otherCosts(table),
    });
    return;
  }
  await ctx.pageLongOutput();
  printReport(ctx, report, options.since !== undefined || options.until !== undefined, table.file.path);
}
