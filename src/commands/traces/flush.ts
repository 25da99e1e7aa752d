// `aip traces flush`: send what `aip traces serve` left in its spool, now; the code is flush.run.ts.

import type { Context } from '../../context.js';
import { examples } from '../examples.js';
import type { Parent } from '../types.js';

function define(traces: Parent) {
  const flush = traces
    .command('flush')
    .description(
      'send the spans `aip traces serve` kept in its spool (trace ingest was unreachable), oldest first, each batch removed once the platform took it; refused while a gateway runs (it sends its spool itself)',
    );
  return examples(flush, ['aip traces flush', 'aip traces flush --json']);
}

export function registerFlush(traces: Parent, ctx: Context): void {
  define(traces).action(async () => {
    const { runFlush } = await import('./flush.run.js');
    await runFlush(ctx);
  });
}
