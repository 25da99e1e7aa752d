// Sends the batches of a checked input, a few at a time: all of them once the input has been read
// and found valid, or (--stream) each final one as soon as it is read. A batch that still fails after
// its retries stops the sending of new ones (the ones in flight finish): the summary says what was
// sent, so that nothing is sent twice by accident.

import { isStale, type Router, reencode } from '../read/batches.js';
import type { SpooledBatch } from '../read/read-input.js';
import type { TraceClient } from './client.js';
import type { Spool } from './spool.js';

/**
 * The batches to send, as they come: added while the input is read (--stream) or all at once after,
 * ended when there will be no more, stopped when none more may be sent (a problem in the input).
 */
export class BatchFeed {
  readonly batches: SpooledBatch[] = [];
  /** The spans of every batch the feed will have had (known once it has ended). */
  spans = 0;
  ended = false;
  stopped = false;
  private waiting: Array<() => void> = [];

  add(batch: SpooledBatch): void {
    this.batches.push(batch);
    this.wake();
  }

  /** No more batches: `spans` is how many spans all of them hold. */
  end(spans: number): void {
    this.spans = spans;
    this.ended = true;
    this.wake();
  }

  /** No more is sent: the batches in flight finish, the others stay unsent. */
  stop(): void {
    this.stopped = true;
    this.wake();
  }

  /** Whether batch `index` is there to send, waiting for it while it may still come. */
  async has(index: number): Promise<boolean> {
    while (index >= this.batches.length && !this.ended && !this.stopped)
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    return !this.stopped && index < this.batches.length;
  }

  private wake(): void {
    const waiting = this.waiting;
    this.waiting = [];
    for (const resolve of waiting) resolve();
  }
}

/** Where the batches' bytes are, and how to route a batch encoded before its resource was final. */
export interface SendFrom {
  spool: Spool;
  /** Set once the input has been read: only batches added after that can be stale. */
  route?: Router;
}

export interface SendSummary {
  batches: number;
  batchesSent: number;
  spans: number;
  spansSent: number;
  accepted: number;
  rejected: number;
  /** The server's messages about rejected spans, each once. */
  messages: string[];
  /** Batches that needed more than one attempt. */
  retried: number;
  seconds: number;
  /** The first batch that failed for good, and why. */
  failure?: { batch: number; error: unknown };
  interrupted: boolean;
}

export async function sendBatches(
  feed: BatchFeed,
  from: SendFrom,
  client: TraceClient,
  options: {
    concurrency: number;
    signal?: AbortSignal;
    onProgress?: (summary: SendSummary) => void;
    /** Told once, when a batch has failed for good (no more will be sent). */
    onFailure?: () => void;
  },
): Promise<SendSummary> {
  const started = performance.now();
  const summary: SendSummary = {
    batches: feed.batches.length,
    batchesSent: 0,
    spans: feed.spans,
    spansSent: 0,
    accepted: 0,
    rejected: 0,
    messages: [],
    retried: 0,
    seconds: 0,
    interrupted: false,
  };
  let next = 0;
  const stop = () => summary.failure !== undefined || options.signal?.aborted === true;
  const worker = async () => {
    while (!stop()) {
      // Several senders wait for the same next batch: each looks again once woken.
      if (next >= feed.batches.length) {
        if (!(await feed.has(next))) break;
        continue;
      }
      const index = next++;
      const batch = feed.batches[index]!;
      let bytes = from.spool.get(batch.slot);
      if (batch.encoded && isStale(batch.encoded)) bytes = reencode(batch.encoded, bytes, from.route!);
      try {
        const result = await client.export(bytes, batch.spans, {
          gzipped: batch.gzipped,
          signal: options.signal,
        });
        summary.batchesSent++;
        summary.spansSent += batch.spans;
        summary.accepted += result.accepted;
        summary.rejected += result.rejected;
        if (result.attempts > 1) summary.retried++;
        if (result.errorMessage && !summary.messages.includes(result.errorMessage))
          summary.messages.push(result.errorMessage);
        from.spool.release(batch.slot);
        summary.batches = feed.batches.length;
        options.onProgress?.(summary);
      } catch (error) {
        if (options.signal?.aborted) break;
        if (summary.failure) continue;
        summary.failure = { batch: index, error };
        options.onFailure?.();
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, options.concurrency) }, worker));
  summary.batches = feed.batches.length;
  summary.spans = feed.ended ? feed.spans : summary.spans;
  summary.interrupted = options.signal?.aborted === true;
  summary.seconds = (performance.now() - started) / 1000;
  return summary;
}
