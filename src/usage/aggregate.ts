// `aip usage`'s arithmetic: the answers' usage (history/query.ts UsageRow, one per answer) summed per
// group, with what they cost where the price of every model in the group is known.
//
// A group whose rows are not all priced has no cost: its `cost` is null, and what the priced rows cost
// is kept apart as a lower bound (`priced_cost`), with the models that had no price named. So the table
// can say "≥ $0.12 (1 model unpriced)": a true statement, never a made-up total.

import type { UsageRow } from '../history/query.js';
import { dollars } from '../output/dollars.js';
import type { UsageKey } from './keys.js';
import { costOf, type Price, type PriceTable, priceOf } from './prices.js';

export { USAGE_KEYS, type UsageKey } from './keys.js';

export interface UsageGroup {
  /** The model, command path, job id ("-" for none), run (its --resume file, else "#<invocation id>") or day (UTC). */
  key: string;
  requests: number;
  samples: number;
  prompt_tokens: number;
  completion_tokens: number;
  /** Dollars; null when a row's model has no price. */
  cost: number | null;
  /** What the rows with a known price cost: all of `cost`, or a lower bound of it. */
  priced_cost: number;
  /** The rows with a known price. */
  priced_requests: number;
  /** The models of the rows that had no price. */
  unpriced_models: string[];
  first_at: string;
  last_at: string;
}

/** A price used, as `aip usage --json` lists them. */
export interface UsedPrice {
  model: string;
  api: 'training' | 'inference';
  price: Price | null;
}

export interface UsageReport {
  by: UsageKey;
  groups: UsageGroup[];
  total: UsageGroup;
  prices: UsedPrice[];
}

/** The key of a row under `by`. */
export function keyOf(row: UsageRow, by: UsageKey): string {
  switch (by) {
    case 'model':
      return row.model;
    case 'command':
      return row.command;
    case 'job':
      return row.job ?? '-';
    case 'run':
      // The file --resume carries on joins the invocations of one run; alone, an invocation is its run.
      return row.ref ?? `#${row.id}`;
    case 'day':
      return row.at.slice(0, 10);
  }
}

function emptyGroup(key: string, at: string): UsageGroup {
  return {
    key,
    requests: 0,
    samples: 0,
    prompt_tokens: 0,
    completion_tokens: 0,
    cost: 0,
    priced_cost: 0,
    priced_requests: 0,
    unpriced_models: [],
    first_at: at,
    last_at: at,
  };
}

function add(group: UsageGroup, row: UsageRow, price: Price | undefined): void {
  group.requests += 1;
  group.samples += row.samples;
  group.prompt_tokens += row.prompt_tokens;
  group.completion_tokens += row.completion_tokens;
  if (row.at < group.first_at) group.first_at = row.at;
  if (row.at > group.last_at) group.last_at = row.at;
  if (price) {
    const cost = costOf(price, row.prompt_tokens, row.completion_tokens);
    group.priced_cost += cost;
    group.priced_requests += 1;
    if (group.cost !== null) group.cost += cost;
  } else {
    group.cost = null;
    if (!group.unpriced_models.includes(row.model)) group.unpriced_models.push(row.model);
  }
}

/**
 * The rows (oldest first, as readUsageRows gives them) summed by `by`: days in order, every other key
 * in the order it was first used. Each model's price is looked up once per API.
 */
export function aggregateUsage(rows: readonly UsageRow[], by: UsageKey, table: PriceTable): UsageReport {
  const used = new Map<string, UsedPrice>();
  const priceFor = (row: UsageRow): Price | undefined => {
    const id = `${row.api}\u0000${row.model}`;
    let known = used.get(id);
    if (!known) {
      known = { model: row.model, api: row.api, price: priceOf(table, row.model, row.api) ?? null };
      used.set(id, known);
    }
    return known.price ?? undefined;
  };
  const groups = new Map<string, UsageGroup>();
  const total = emptyGroup('total', rows[0]?.at ?? '');
  for (const row of rows) {
    const key = keyOf(row, by);
    let group = groups.get(key);
    if (!group) {
      group = emptyGroup(key, row.at);
      groups.set(key, group);
    }
    const price = priceFor(row);
    add(group, row, price);
    add(total, row, price);
  }
  const list = [...groups.values()];
  if (by === 'day') list.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  return { by, groups: list, total, prices: [...used.values()] };
}

/** "$0.0123"; "≥ $0.0100 (1 model unpriced)" when some rows had no price; "unknown" when none had one. */
export function costText(
  group: Pick<UsageGroup, 'cost' | 'priced_cost' | 'priced_requests' | 'unpriced_models'>,
): string {
  if (group.cost !== null) return dollars(group.cost);
  if (group.priced_requests === 0) return 'unknown';
  const n = group.unpriced_models.length;
  return `≥ ${dollars(group.priced_cost)} (${n} model${n === 1 ? '' : 's'} unpriced)`;
}
