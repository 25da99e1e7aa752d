// Sends the batches of a checked input, a few at a time. A batch that still fails after its retries
// stops the sending of new ones (the ones in flight finish): the summary says what was sent, so that
// nothing is sent twice by accident.

import { isStale, reencode } from '../read/batches.js';
import type { ReadResult } from '../read/read-input.js';
import type { TraceClient } from './client.js';

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
  input: ReadResult,
  client: TraceClient,
  options: { concurrency: number; signal?: AbortSignal; onProgress?: (summary: SendSummary) => void },
): Promise<SendSummary> {
  const started = performance.now();
  const summary: SendSummary = {
    batches: input.batches.length,
    batchesSent: 0,
    spans: input.spans,
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
    while (!stop() && next < input.batches.length) {
      const index = next++;
      const batch = input.batches[index]!;
      let bytes = input.spool.get(batch.slot);
      if (batch.encoded && isStale(batch.encoded)) bytes = reencode(batch.encoded, bytes, input.route);
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
        input.spool.release(batch.slot);
        options.onProgress?.(summary);
      } catch (error) {
        if (options.signal?.aborted) break;
        summary.failure ??= { batch: index, error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, options.concurrency) }, worker));
  summary.interrupted = options.signal?.aborted === true;
  summary.seconds = (performance.now() - started) / 1000;
  return summary;
}
