// OpenAI-style cursor pagination: the next page is asked for with after=<last id> while has_more.
// A server that never stops saying there is more is stopped: by a cursor it gave before (a loop), by
// a missing cursor, or at the page limit of --all (limits.ts).

import { ApiError } from '../errors/errors.js';
import { DEFAULT_MAX_PAGES, tooManyPages } from './limits.js';
import type { Page } from './types.js';

/** A cursor from the server, safe to print: quoted (control characters escaped) and short. */
const quoted = (cursor: string) => JSON.stringify(cursor.length > 80 ? `${cursor.slice(0, 80)}…` : cursor);

/** Every item of every page from `after` on, a page at a time, at most `maxPages` pages. */
export async function* allItems<T>(
  fetchPage: (after: string | undefined) => Promise<Page<T>>,
  after?: string,
  maxPages = DEFAULT_MAX_PAGES,
  options: { stop?: () => boolean } = {},
): AsyncGenerator<T> {
  for await (const page of allPages(fetchPage, after, maxPages, options)) yield* page;
}

/**
 * Every page from `after` on, as its items, at most `maxPages` pages. `stop`: asked before each page
 * after the first; true (nobody reads the output any more: a pager that quit, `| head`) ends the
 * paging there, without asking for the page.
 */
export async function* allPages<T>(
  fetchPage: (after: string | undefined) => Promise<Page<T>>,
  after?: string,
  maxPages = DEFAULT_MAX_PAGES,
  options: { stop?: () => boolean } = {},
): AsyncGenerator<T[]> {
  let cursor = after;
  // Every cursor used so far, to catch a loop of any length (at most maxPages short strings).
  const used = new Set<string>(after === undefined ? [] : [after]);
  for (let pages = 1; ; pages++) {
    const page = await fetchPage(cursor);
    yield page.data;
    if (!page.has_more || options.stop?.()) return;
    const next = page.last_id || (page.data.at(-1) as { id?: string } | undefined)?.id;
    if (!next) {
      throw new ApiError(
        'the server said there are more items but gave no cursor to fetch them',
        200,
        undefined,
      );
    }
    if (used.has(next)) {
      throw new ApiError(
        `the server said there are more items but repeated the cursor ${quoted(next)} of an earlier page, so paging would never end`,
        200,
        undefined,
      );
    }
    if (pages >= maxPages) throw tooManyPages(pages, quoted(next));
    used.add(next);
    cursor = next;
  }
}
