// The Training API's cursor pages (api-contract.md §2.1, §2.5): items after the one whose id is
// `after`, at most `limit` of them, with first_id/last_id ("" when the page is empty, the schema's
// default) and has_more. An empty `after` is that same "" handed back: it means from the start, so
// that a client passing last_id on as the next cursor never gets an error for it.

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

/**
 * The page of `items` (already in order) after the cursor; answers 422 and returns undefined for a
 * cursor that names no item of the list ("no event X in this job").
 */
export function pageAfter<T extends { id: string }>(
  x: Exchange,
  items: readonly T[],
  query: { limit: number; after: string | undefined },
  names: { item: string; owner: string },
): Paged<T> | undefined {
  let start = 0;
  if (query.after !== undefined) {
    const index = items.findIndex((item) => item.id === query.after);
    if (index === -1) {
      x.invalid([
        {
          type: 'value_error',
          loc: ['query', 'after'],
          msg: `Value error, no ${names.item} ${query.after} in this ${names.owner}`,
        },
      ]);
      return undefined;
    }
    start = index + 1;
  }
  const data = items.slice(start, start + query.limit);
  return {
    object: 'list',
    data,
    first_id: data[0]?.id ?? '',
    last_id: data.at(-1)?.id ?? '',
    has_more: start + query.limit < items.length,
  };
}
