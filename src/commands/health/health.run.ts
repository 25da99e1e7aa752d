// `aip health`: one request per interface, in parallel, no key sent (health/checks.ts says what each
// interface must answer).

import type { Context } from '../../context.js';
import { ApiError, CommandFailedError } from '../../errors/errors.js';
import { checkInterface } from '../../health/checks.js';
import { printTable } from '../../output/table.js';

export async function runHealth(ctx: Context): Promise<void> {
  const { io } = ctx;
  const results = await io.withSpinner('Checking the training, inference and trace endpoints…', () =>
    Promise.all((['training', 'inference', 'trace'] as const).map((service) => checkInterface(ctx, service))),
  );
  const checks = results.map((r) => r.check);

  if (ctx.json) io.json(checks);
  else if (!io.quiet) {
    printTable(io, checks, [
      { header: 'interface', value: (c) => c.interface },
      {
        header: 'status',
        value: (c) => c.status,
        color: (text, c, style) => (c.ok ? style.green(text) : style.red(text)),
      },
      {
        header: 'latency',
        value: (c) => (c.latency_ms === null ? '' : io.isStdoutTTY ? `${c.latency_ms} ms` : c.latency_ms),
      },
      { header: 'url', value: (c) => c.url },
      { header: 'detail', value: (c) => c.message ?? '' },
    ]);
  }
  const failed = results.filter((r) => r.error);
  if (failed.length === 0) return;
  // The message names every interface that failed and says why the first did; the exit code is that
  // of the first failure's kind (a 429 is 6 here as everywhere).
  const first = failed[0]!.error!;
  const which = failed.map(({ check: c }) => `${c.interface} ${c.status}`).join(', ');
  const message = `health check failed (${which}): ${first.message}`;
  if (first instanceof ApiError)
    throw new ApiError(message, first.status, first.requestId, { hint: first.hint, details: first.details });
  throw new CommandFailedError(message, { hint: first.hint });
}
