// The Training API's cursor pages (api-contract.md §2.1, §2.5): items after the one whose id is
// `after`, at most `limit` of them, with first_id/last_id ("" when the page is empty, the schema's
// default) and has_more. An empty `after` is that same "" handed back: it means from the start, so
// that a client passing last_id on as the next cursor never gets an error for it.
//
// A cursor is found by index, not by walking the list: every list served here keeps an index of its
// ids beside it (cursorIndex), so a page at depth 45,000 costs what the first page costs, and a page
// in descending order reads the list backwards rather than copying it reversed.

import type { Exchange } from './exchange.js';
import type { QueryReader } from './validation.js';

export interface Paged<T extends { id: string }> {
  object: 'list';
  data: T[];
  first_id: string;
  last_id: string;
  has_more: boolean;
}

/** Reads `limit` (1-100, default 20) and `after`; undefined `after` for none or "". */
export function pageQuery(query: QueryReader): { limit: number; after: string | undefined } {
  const limit = query.int('limit', { min: 1, max: 100, fallback: 20 });
  return { limit, after: query.string('after') || undefined };
}

/** Ids → positions of one list, and how far into the list it has been built. */
interface IdIndex {
  positions: Map<string, number>;
  indexed: number;
}

const indexes = new WeakMap<readonly { id: string }[], IdIndex>();

/**
 * Where the item with this id is in `items`, or -1. The index is kept per list (the stores append to
 * their lists in place), extended over what was appended since, and built again from the start only
 * when a list was changed otherwise (an answer is always checked against the list itself), so a known
 * cursor costs a lookup and only an unknown one a walk.
 */
export function cursorIndex(items: readonly { id: string }[], id: string): number {
  let index = indexes.get(items);
  if (!index || index.indexed > items.length) {
    index = { positions: new Map(), indexed: 0 };
    indexes.set(items, index);
  }
  const found = index.positions.get(id);
  if (found !== undefined && items[found]?.id === id) return found;
  for (; index.indexed < items.length; index.indexed++)
    index.positions.set(items[index.indexed]!.id, index.indexed);
  const appended = index.positions.get(id);
  if (appended !== undefined && items[appended]?.id === id) return appended;
  // Changed in place (an item removed or moved): indexed again from the start, once.
  index.positions.clear();
  for (let i = 0; i < items.length; i++) index.positions.set(items[i]!.id, i);
  index.indexed = items.length;
  return index.positions.get(id) ?? -1;
}

/**
 * The page of `items` (kept in ascending order; `desc` reads it from the end) after the cursor;
 * answers 422 and returns undefined for a cursor that names no item of the list ("no event X in this
 * job").
 */
export function pageAfter<T extends { id: string }>(
  x: Exchange,
  items: readonly T[],
  query: { limit: number; after: string | undefined },
  names: { item: string; owner: string },
  order: 'asc' | 'desc' = 'asc',
): Paged<T> | undefined {
  const n = items.length;
  let start = 0;
  if (query.after !== undefined) {
    const at = cursorIndex(items, query.after);
    if (at === -1) {
      x.invalid([
        {
          type: 'value_error',
          loc: ['query', 'after'],
          msg: `Value error, no ${names.item} ${query.after} in this ${names.owner}`,
        },
      ]);
      return undefined;
    }
    // Positions in the order asked for: descending counts from the end.
    start = (order === 'asc' ? at : n - 1 - at) + 1;
  }
  const end = Math.min(n, start + query.limit);
  const data: T[] = [];
  for (let k = start; k < end; k++) data.push(items[order === 'asc' ? k : n - 1 - k]!);
  return {
    object: 'list',
    data,
    first_id: data[0]?.id ?? '',
    last_id: data.at(-1)?.id ?? '',
    has_more: start + query.limit < n,
  };
}
