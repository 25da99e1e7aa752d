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
import { progress } from '../../output/progress.js';
import { DEFAULT_LIMITS } from '../../traces/read/batches.js';
import { type ReadResult, readSpans } from '../../traces/read/read-input.js';
import { reportSend } from '../../traces/send/ci-report.js';
import { configuredProject, traceClient } from '../../traces/send/client.js';
import { type SendSummary, sendBatches } from '../../traces/send/send.js';
import { onSpoolFailure } from '../../traces/send/spool.js';
import { problemLines } from '../../validate/check-file.js';
import type { SendOptions } from './send.js';

const plural = (n: number, word: string, many = `${word}s`) =>
  `${n.toLocaleString('en-US')} ${n === 1 ? word : many}`;

function rate(spans: number, seconds: number): string {
  return seconds > 0 ? `${Math.round(spans / seconds).toLocaleString('en-US')} spans/s` : '';
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
  // So does a spool that cannot write (a full disk where TMPDIR is): the batches are all spooled
  // before the first is sent, so then nothing was sent, and nothing will be.
  const spoolFailed = new AbortController();
  let spoolFailure: unknown;
  const unwatch = onSpoolFailure((error) => {
    spoolFailure ??= error;
    spoolFailed.abort();
  });
  const signal = AbortSignal.any([interrupted, spoolFailed.signal]);
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
      onProgress: (spans) => show.status(`Reading ${source.name}: ${plural(spans, 'span')}…`),
    });
  } catch (error) {
    release();
    if (spoolFailure !== undefined) throw spoolFailure;
    if (error instanceof InterruptedError) io.err('Stopped while reading; nothing was sent');
    throw error;
  } finally {
    unwatch();
    show.done();
  }
  let summary: SendSummary | undefined;
  try {
    // Failed as the input ended, before the signal was looked at.
    if (input.spool.failure !== undefined) throw input.spool.failure;
    if (input.problemCount > 0) {
      for (const line of problemLines(input)) io.err(line);
      annotateProblems(io, input, 'invalid span');
      throw new UsageError(
        `${input.name}: ${plural(input.problemCount, 'problem')} in ${plural(input.spans, 'span')}; nothing was sent`,
      );
    }
    const readSeconds = (performance.now() - started) / 1000;
    if (options.dryRun) {
      report(ctx, input, undefined, readSeconds);
      io.info('Dry run: nothing was sent');
      return;
    }
    try {
      summary = await sendBatches(input, client!, {
        concurrency: options.concurrency ?? 4,
        signal,
        onProgress: (s) =>
          show.status(
            `Sending: ${plural(s.spansSent, 'span')} of ${s.spans.toLocaleString('en-US')} (${s.batchesSent}/${s.batches} batches)…`,
          ),
      });
    } finally {
      show.done();
    }
    report(ctx, input, summary, (performance.now() - started) / 1000);
    // For a later step of the workflow: what the platform took, whether or not it took everything.
    const gha = githubActions(ctx);
    if (gha) reportSend(gha, input, summary);
    if (summary.interrupted) throw new InterruptedError();
    if (summary.failure) {
      const { error } = summary.failure;
      if (error instanceof CliError) {
        error.message = `batch ${summary.failure.batch + 1} of ${summary.batches} failed: ${error.message}`;
      }
      throw error;
    }
    if (summary.rejected > 0) {
      throw new CliError(
        `the platform rejected ${plural(summary.rejected, 'span')}${summary.messages.length ? `: ${summary.messages.join('; ')}` : ''}`,
      );
    }
  } finally {
    release();
    input.spool.close();
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
    `Sent ${plural(summary.spansSent, 'span')} of ${summary.spans.toLocaleString('en-US')} (${batches}, ${seconds.toFixed(1)}s, ${rate(summary.spansSent, seconds)}): ${summary.accepted.toLocaleString('en-US')} accepted, ${summary.rejected.toLocaleString('en-US')} rejected`,
  );
  if (summary.retried > 0) io.info(`${plural(summary.retried, 'batch', 'batches')} needed retries`);
}
