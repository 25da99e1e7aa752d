// OpenAI-style cursor pagination: the next page is asked for with after=<last id> while has_more.

import { ApiError } from '../errors.js';
import type { Page } from './types.js';

/** Every item of every page from `after` on, a page at a time. */
export async function* allItems<T>(
  fetchPage: (after: string | undefined) => Promise<Page<T>>,
  after?: string,
): AsyncGenerator<T> {
  let cursor = after;
  for (;;) {
    const page = await fetchPage(cursor);
    yield* page.data;
    if (!page.has_more) return;
    // A page that says there is more but gives no new cursor would loop forever.
    const next = page.last_id || (page.data.at(-1) as { id?: string } | undefined)?.id;
    if (!next || next === cursor) {
      throw new ApiError(
        'the server said there are more items but gave no cursor to fetch them',
        200,
        undefined,
      );
    }
    cursor = next;
  }
}
