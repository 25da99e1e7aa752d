// `aip traces send <file|->`: check every span of the input, then send them in batches, a few at a
// time, and say what the platform accepted. Nothing is sent when any span has a problem. On GitHub
// Actions, the problems are annotations too, and spans-accepted/spans-rejected are step outputs, with
// a step summary of the counts (traces/send/ci-report.ts).

import { lineLimitFrom } from '../../api/limits.js';
import { githubActions } from '../../ci/github.js';
import { annotateProblems } from '../../ci/problems.js';
import type { Context } from '../../context.js';
import { CliError, InterruptedError, UsageError } from '../../errors/errors.js';
import { openSource } from '../../fs/open-source.js';
import { counted, thousands } from '../../output/plural.js';
import { type Progress, progress } from '../../output/progress.js';
import { DEFAULT_LIMITS } from '../../traces/read/batches.js';
import { type ReadResult, readSpans } from '../../traces/read/read-input.js';
import { reportSend } from '../../traces/send/ci-report.js';
import { configuredProject, type TraceClient, traceClient } from '../../traces/send/client.js';
import { BatchFeed, type SendFrom, type SendSummary, sendBatches } from '../../traces/send/send.js';
import { onSpoolFailure, Spool } from '../../traces/send/spool.js';
import { problemLines } from '../../validate/check-file.js';
import type { SendOptions } from './send.js';

const plural = counted;

function rate(spans: number, seconds: number): string {
  return seconds > 0 ? `${thousands(Math.round(spans / seconds))} spans/s` : '';
}

export async function runSend(ctx: Context, file: string, options: SendOptions): Promise<void> {
  const { io } = ctx;
  // A missing key or a refused URL is known now, before a long read.
  const client = options.dryRun ? undefined : traceClient(ctx);
  const maxLineBytes = lineLimitFrom(ctx.env);
  const source = openSource(file, io, maxLineBytes);
  const show = progress(io);
  const started = performance.now();
  // Ctrl-C stops the reading (and the spool goes with it) as well as the sending.
  const { signal: interrupted, release } = ctx.interruptible();
  // So does a spool that cannot write (a full disk where TMPDIR is): unless --stream, the batches are
  // all spooled before the first is sent, so then nothing was sent, and nothing will be.
  const readStopped = new AbortController();
  let spoolFailure: unknown;
  const unwatch = onSpoolFailure((error) => {
    spoolFailure ??= error;
    readStopped.abort();
  });
  const signal = AbortSignal.any([interrupted, readStopped.signal]);
  const spool = new Spool();
  const feed = new BatchFeed();
  const from: SendFrom = { spool };
  const sending = new Sending(feed, from, client, show, {
    concurrency: options.concurrency ?? 4,
    signal: interrupted,
    // A batch that fails for good stops the reading too: nothing more will be sent.
    onFailure: () => readStopped.abort(),
  });
  // --stream: each batch the workers make is sent as it comes (a dry run only reads).
  const stream = options.stream === true && client !== undefined;
  if (stream) sending.start();
  let input: ReadResult;
  show.status(`Reading ${source.name}…`);
  try {
    input = await readSpans(source, {
      limits: {
        spans: options.batchSpans ?? DEFAULT_LIMITS.spans,
        bytes: options.batchBytes ?? DEFAULT_LIMITS.bytes,
      },
      project: configuredProject(ctx),
      format: options.format,
      workers: options.workers,
      maxLineBytes,
      signal,
      spool,
      onFinalBatch: stream ? (batch) => feed.add(batch) : undefined,
      onProgress: (spans) => show.status(() => `Reading ${source.name}: ${plural(spans, 'span')}…`),
    });
  } catch (error) {
    const summary = await sending.stop();
    release();
    unwatch();
    show.done();
    spool.close();
    if (spoolFailure !== undefined) throw saySent(spoolFailure, summary);
    if (summary?.failure) throw batchFailure(summary);
    if (error instanceof InterruptedError) io.err(`Stopped while reading; ${sentSoFar(summary)}`);
    throw error;
  }
  unwatch();
  show.done();
  from.route = input.route;
  try {
    // Failed as the input ended, before the signal was looked at.
    if (input.spool.failure !== undefined) throw saySent(input.spool.failure, await sending.stop());
    if (input.problemCount > 0) {
      const summary = await sending.stop();
      for (const line of problemLines(input)) io.err(line);
      annotateProblems(io, input, 'invalid span');
      throw new UsageError(
        `${input.name}: ${plural(input.problemCount, 'problem')} in ${plural(input.spans, 'span')}; ${sentSoFar(summary)}`,
      );
    }
    if (options.dryRun) {
      report(ctx, input, undefined, (performance.now() - started) / 1000);
      io.info('Dry run: nothing was sent');
      return;
    }
    for (const batch of input.batches) if (!(stream && batch.final)) feed.add(batch);
    feed.end(input.spans);
    const summary = await sending.finish();
    report(ctx, input, summary, (performance.now() - started) / 1000);
    // For a later step of the workflow: what the platform took, whether or not it took everything.
    const gha = githubActions(ctx);
    if (gha) reportSend(gha, input, summary);
    if (summary.interrupted) throw new InterruptedError();
    if (summary.failure) throw batchFailure(summary);
    if (summary.rejected > 0) {
      throw new CliError(
        `the platform rejected ${plural(summary.rejected, 'span')}${summary.messages.length ? `: ${summary.messages.join('; ')}` : ''}`,
      );
    }
  } finally {
    await sending.stop();
    release();
    spool.close();
  }
}

/** What was sent before the send stopped, in words: "nothing was sent" unless --stream sent some. */
function sentSoFar(summary: SendSummary | undefined): string {
  if (!summary?.spansSent) return 'nothing was sent';
  return `${plural(summary.spansSent, 'span')} had been sent (--stream sends as it reads)`;
}

/** A spool's error says nothing was sent: with --stream, some may have been. */
function saySent(error: unknown, summary: SendSummary | undefined): unknown {
  if (error instanceof Error && summary?.spansSent)
    error.message = error.message.replace('nothing was sent', sentSoFar(summary));
  return error;
}

/** The error of the batch that failed for good, saying which batch it was. */
function batchFailure(summary: SendSummary): unknown {
  const { error } = summary.failure!;
  if (error instanceof CliError) {
    error.message = `batch ${summary.failure!.batch + 1} of ${summary.batches} failed: ${error.message}`;
  }
  return error;
}

/** The sending of a feed's batches: started at once (--stream) or once the input has been read. */
class Sending {
  private running: Promise<SendSummary> | undefined;

  constructor(
    private readonly feed: BatchFeed,
    private readonly from: SendFrom,
    private readonly client: TraceClient | undefined,
    private readonly show: Progress,
    private readonly options: Omit<Parameters<typeof sendBatches>[3], 'onProgress'>,
  ) {}

  start(): void {
    this.running ??= sendBatches(this.feed, this.from, this.client!, {
      ...this.options,
      onProgress: (s) =>
        this.show.status(() => {
          const of = this.feed.ended ? ` of ${thousands(s.spans)}` : '';
          return `Sending: ${plural(s.spansSent, 'span')}${of} (${s.batchesSent}/${s.batches} batches)…`;
        }),
    });
  }

  /** Every batch of the ended feed sent (or the sending stopped); the summary. */
  async finish(): Promise<SendSummary> {
    this.start();
    try {
      return await this.running!;
    } finally {
      this.show.done();
    }
  }

  /** No more batches sent; the ones in flight finish. The summary, if anything was being sent. */
  async stop(): Promise<SendSummary | undefined> {
    this.feed.stop();
    return this.running;
  }
}

function report(ctx: Context, input: ReadResult, summary: SendSummary | undefined, seconds: number): void {
  const { io } = ctx;
  const format = `${input.format === 'json' ? 'OTLP/JSON' : 'OTLP protobuf'}${input.gzipped ? ', gzipped' : ''}`;
  if (ctx.json) {
    io.json({
      file: input.name,
      format: input.format,
      gzipped: input.gzipped,
      workers: input.workers,
      spans: input.spans,
      batches: input.batches.length,
      sent: summary?.spansSent ?? 0,
      accepted: summary?.accepted ?? 0,
      rejected: summary?.rejected ?? 0,
      messages: summary?.messages ?? [],
      failed_batches: summary?.failure ? 1 : 0,
      unsent_batches: summary ? summary.batches - summary.batchesSent : input.batches.length,
      retried_batches: summary?.retried ?? 0,
      seconds: Number(seconds.toFixed(3)),
      spans_per_second: seconds > 0 ? Math.round((summary?.spansSent ?? input.spans) / seconds) : null,
      dry_run: summary === undefined,
    });
    return;
  }
  if (!summary) {
    io.out(
      `${input.name} (${format}): ${plural(input.spans, 'span')} in ${plural(input.batches.length, 'batch', 'batches')}, all valid`,
    );
    return;
  }
  const batches = `${summary.batchesSent}/${summary.batches} batches`;
  io.out(
    `Sent ${plural(summary.spansSent, 'span')} of ${thousands(summary.spans)} (${batches}, ${seconds.toFixed(1)}s, ${rate(summary.spansSent, seconds)}): ${thousands(summary.accepted)} accepted, ${thousands(summary.rejected)} rejected`,
  );
  if (summary.retried > 0) io.info(`${plural(summary.retried, 'batch', 'batches')} needed retries`);
}
