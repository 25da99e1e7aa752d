// `aip traces flush`: the spool sent once, to its end or to the first batch the platform cannot take
// (that error is the command's: its exit code says why, the batches left stay for the next try).

import type { Context } from '../../context.js';
import { counted } from '../../output/plural.js';
import { newCounters } from '../../traces/gateway/counters.js';
import { drainSpool } from '../../traces/gateway/drain.js';
import { spoolDir } from '../../traces/gateway/paths.js';
import { DiskSpool } from '../../traces/gateway/spool.js';
import { traceClient } from '../../traces/send/client.js';

export async function runFlush(ctx: Context): Promise<void> {
  const { io } = ctx;
  const client = traceClient(ctx);
  const spool = DiskSpool.open(spoolDir(ctx.env));
  const counters = newCounters();
  const { signal, release } = ctx.interruptible();
  try {
    const before = { batches: spool.count, spans: spool.spans };
    const result = await drainSpool(spool, client, counters, {
      signal,
      onWarning: (message) => io.warn(message),
    });
    const left = { batches: spool.count, spans: spool.spans };
    if (ctx.json)
      io.json({ sent: result.sent, batches: result.batches, dropped: counters.dropped, left, before });
    else if (before.batches === 0) io.info('The spool is empty: nothing to send');
    else
      io.info(
        `Sent ${counted(result.sent, 'span')} (${counted(result.batches, 'batch', 'batches')}); ${counted(left.spans, 'span')} left in the spool`,
      );
    if (result.error) throw result.error;
  } finally {
    release();
    spool.close();
  }
}
