// `aip traces serve`: the gateway (traces/gateway/) until Ctrl-C or SIGTERM. The first stops taking
// exports and waits until what is in flight is forwarded or spooled; a second sends nothing more and
// spools the rest. Then the counters: a line on stderr, or an object on stdout with --json.

import type { Context } from '../../context.js';
import { CliError } from '../../errors/errors.js';
import { counted, thousands } from '../../output/plural.js';
import { progress } from '../../output/progress.js';
import { type GatewayCounters, newCounters } from '../../traces/gateway/counters.js';
import { SpoolDrainer } from '../../traces/gateway/drain.js';
import { Forwarder } from '../../traces/gateway/forward.js';
import { OTLP_TRACES_PATH, Receiver } from '../../traces/gateway/gateway.js';
import { spoolDir } from '../../traces/gateway/paths.js';
import { DEFAULT_SPOOL_BYTES, DiskSpool } from '../../traces/gateway/spool.js';
import { DEFAULT_LIMITS } from '../../traces/read/batches.js';
import { redactorFromOptions } from '../../traces/redact/flags.js';
import { configuredProject, traceClient } from '../../traces/send/client.js';
import { openTeeWriter } from '../../traces/store/writer.js';
import type { ServeOptions } from './serve.js';

export const DEFAULT_GATEWAY_PORT = 4318;

function statusLine(c: GatewayCounters, rate: number): string {
  const spool = c.spool.batches > 0 ? ` (spool: ${counted(c.spool.spans, 'span')})` : '';
  return `received ${thousands(c.received)} · forwarded ${thousands(c.forwarded)} · spooled ${thousands(c.spooled)}${spool} · dropped ${thousands(c.dropped)} · ${thousands(Math.round(rate))} spans/s`;
}

function nextSignal(ctx: Context): Promise<void> {
  return new Promise((resolve) => {
    const stop = () => {
      ctx.deps.signals.off('SIGINT', stop);
      ctx.deps.signals.off('SIGTERM', stop);
      resolve();
    };
    ctx.deps.signals.once('SIGINT', stop);
    ctx.deps.signals.once('SIGTERM', stop);
  });
}

export async function runServe(ctx: Context, options: ServeOptions): Promise<void> {
  const { io } = ctx;
  // Bad redaction rules are exit 2 before anything starts.
  const redactor = redactorFromOptions(options);
  // Retries are said once, by the forwarder's own warning, not once an attempt.
  const client = traceClient(ctx, { onRetry: () => {} });
  const spool = DiskSpool.open(spoolDir(ctx.env), options.spoolMax ?? DEFAULT_SPOOL_BYTES);
  const counters = newCounters();
  const show = progress(io);
  const warned = new Set<string>();
  // A warning once for each kind: an unreachable platform is said once, not once a batch.
  const warn = (message: string) => {
    const kind = message.split(':')[0]!;
    if (warned.has(kind)) return;
    warned.add(kind);
    show.warn(message);
  };
  const forwarder = new Forwarder(client, spool, counters, {
    concurrency: options.concurrency ?? 4,
    limits: DEFAULT_LIMITS,
    retries: 1,
    onSpooled: () => drainer.poke(),
    onWarning: warn,
  });
  const drainer = new SpoolDrainer(
    spool,
    client,
    counters,
    () => {
      if (forwarder.platformDown) show.line('trace ingest is back: the spool is sent');
      forwarder.platformDown = false;
      warned.clear();
    },
    warn,
  );
  const tee = options.tee ? openTeeWriter(ctx.env, { warn: (message) => show.warn(message) }) : undefined;
  const receiver = new Receiver({
    forwarder,
    counters,
    project: configuredProject(ctx),
    redact: redactor.isEmpty ? undefined : redactor.apply,
    onTaken: tee ? (encoded) => tee.append(encoded) : undefined,
  });
  let url: string;
  try {
    url = await receiver.listen(options.port ?? DEFAULT_GATEWAY_PORT);
  } catch (error) {
    spool.close();
    tee?.close();
    if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE')
      throw new CliError(
        `port ${options.port ?? DEFAULT_GATEWAY_PORT} on 127.0.0.1 is in use (another gateway or collector?)`,
        {
          hint: 'give another with --port, or 0 for any free one',
        },
      );
    throw error;
  }
  if (spool.count > 0) io.info(`The spool holds ${counted(spool.spans, 'span')} from before: sending them`);
  io.info(
    `Listening on ${url}${OTLP_TRACES_PATH} (OTLP/HTTP, protobuf or JSON); forwarding to ${ctx.serviceUrl('trace')}`,
  );
  io.info(`Exporters: OTEL_EXPORTER_OTLP_ENDPOINT=${url}`);
  drainer.start();
  const started = performance.now();
  let last = { at: started, forwarded: 0 };
  let rate = 0;
  const ticker = setInterval(() => {
    const now = performance.now();
    rate = ((counters.forwarded + counters.spooled - last.forwarded) * 1000) / (now - last.at);
    last = { at: now, forwarded: counters.forwarded + counters.spooled };
    counters.spool = { batches: spool.count, spans: spool.spans, bytes: spool.bytes };
    show.status(() => statusLine(counters, rate));
  }, 1000);
  ticker.unref();

  await nextSignal(ctx);
  show.status('Stopping: forwarding or spooling what is in flight (Ctrl-C again: spool it all now)…');
  void nextSignal(ctx).then(() => {
    forwarder.abort.abort();
    drainer.abortNow();
  });
  await receiver.close();
  await forwarder.drained();
  await drainer.close();
  clearInterval(ticker);
  show.done();
  counters.spool = { batches: spool.count, spans: spool.spans, bytes: spool.bytes };
  spool.close();
  tee?.close();
  const seconds = (performance.now() - started) / 1000;
  if (ctx.json) {
    io.json({ url, ...counters, seconds: Number(seconds.toFixed(3)) });
    return;
  }
  io.info(
    statusLine(counters, seconds > 0 ? counters.received / seconds : 0).replace(/ · [\d,]+ spans\/s$/, ''),
  );
  if (counters.spool.batches > 0)
    io.info(
      `The spool keeps ${counted(counters.spool.spans, 'span')}: the next gateway sends them (or now: aip traces flush)`,
    );
}
