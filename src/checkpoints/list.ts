// Listing a model's checkpoints for what is chosen among them (a range, the best by a metric, the
// latest): every page, or the one checkpoint of the highest step.

import { allPages } from '../api/pagination.js';
import type { Checkpoint } from '../api/types.js';
import type { Context } from '../context.js';

export interface ListingOptions {
  limit?: number;
  after?: string;
  order?: 'asc' | 'desc';
}

/** Every page of a model's checkpoints, as each comes; no more asked for once nobody reads stdout. */
export function checkpointPages(
  ctx: Context,
  id: string,
  options: ListingOptions = {},
): AsyncIterable<Checkpoint[]> {
  const training = ctx.training();
  return allPages(
    (after) => training.listCheckpoints(id, { after, limit: options.limit ?? 100, order: options.order }),
    options.after,
    ctx.limits.pages,
    // No reader left (a pager quit, `| head`): no more pages are asked for.
    { stop: () => ctx.io.outputClosed },
  );
}

/** Every checkpoint of a model, every page read. */
export async function listAllCheckpoints(
  ctx: Context,
  id: string,
  options: ListingOptions = {},
): Promise<Checkpoint[]> {
  const all: Checkpoint[] = [];
  for await (const page of checkpointPages(ctx, id, options)) all.push(...page);
  return all;
}

/** The checkpoint of the highest step (one request), or undefined when the model has none. */
export async function latestCheckpoint(ctx: Context, id: string): Promise<Checkpoint | undefined> {
  const page = await ctx.training().listCheckpoints(id, { order: 'desc', limit: 1 });
  return page.data[0];
}
