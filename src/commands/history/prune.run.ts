// `aip history prune --older-than`: the commands that ended before that time go, with their rows
// (history/prune.ts), after the journal is folded. How many: on stderr, or as JSON with --json.

import type { Context } from '../../context.js';
import { pruneEndedBefore } from '../../history/prune.js';
import { withHistoryStore } from '../../history/store.js';
import type { PruneOptions } from './prune.js';

export async function runPrune(ctx: Context, options: PruneOptions): Promise<void> {
  const cutoff = options.olderThan;
  const removed = (await withHistoryStore(ctx.env, ({ db }) => pruneEndedBefore(db, cutoff))) ?? 0;
  if (ctx.json) ctx.io.json({ removed, older_than: cutoff });
  else ctx.io.info(`removed ${removed} command${removed === 1 ? '' : 's'} that ended before ${cutoff}`);
}
