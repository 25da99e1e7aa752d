// Sends what the SDKs gave the gateway on to trace ingest, and answers each SDK request only once its
// spans are either taken by the platform or kept in the disk spool (spool.ts): what was acknowledged
// is never lost. Requests waiting while others are in flight go out together, up to the batch limits
// of `traces send` (an ExportTraceServiceRequest is a list, so encoded requests concatenated are one
// request), gzipped as `traces send` does. While the platform is unreachable, new batches go straight
// to the spool, which the drainer sends, oldest first, once it is back (drain.ts).

import { gzipSync } from 'node:zlib';
import { ApiError } from '../../errors/errors.js';
import type { BatchLimits } from '../read/batches.js';
import type { TraceClient } from '../send/client.js';
import { GZIP } from '../send/gzip-options.js';
import type { GatewayCounters } from './counters.js';
import type { DiskSpool } from './spool.js';

/**
 * Gzipped on the main thread: a batch is at most 4 MB, under 10 ms at level 1, and zlib's pool costs
 * more CPU than it saves on a machine the exporter, the gateway and the platform share (twice the CPU
 * a request on 2 cores, bench/gateway.mjs).
 */
const gzip = (bytes: Uint8Array): Buffer => gzipSync(bytes, GZIP);

/** How an SDK request ended: taken (forwarded or spooled), or refused with the status to answer. */
export type Outcome =
  | { taken: 'forwarded' | 'spooled'; rejected: number; message: string }
  | { refused: 400 | 503; message: string };

interface Pending {
  bytes: Uint8Array;
  spans: number;
  settle: (outcome: Outcome) => void;
}

/**
 * The platform's refusal of the data itself: sent again, it would be refused again. Anything else (no
 * answer, 401/403, 404, 408, 429, 5xx) may pass later, so the batch is kept.
 */
export function refusedForGood(error: unknown): boolean {
  return error instanceof ApiError && [400, 413, 415, 422].includes(error.status);
}

export interface ForwarderOptions {
  concurrency: number;
  limits: BatchLimits;
  /** Retries of a direct send before its batch is spooled (the SDK waits meanwhile). */
  retries: number;
  /** Told when a batch went to the spool, so that the drainer looks. */
  onSpooled: () => void;
  onWarning: (message: string) => void;
}

export class Forwarder {
  private queue: Pending[] = [];
  private inFlight = 0;
  private idle: Array<() => void> = [];
  /** Set while sends fail: new batches go to the spool without trying the platform first. */
  platformDown = false;
  readonly abort = new AbortController();

  constructor(
    private readonly client: TraceClient,
    private readonly spool: DiskSpool,
    private readonly counters: GatewayCounters,
    private readonly options: ForwarderOptions,
  ) {}

  submit(bytes: Uint8Array, spans: number): Promise<Outcome> {
    return new Promise((settle) => {
      this.queue.push({ bytes, spans, settle });
      this.pump();
    });
  }

  /** Resolves once nothing is queued or in flight. */
  drained(): Promise<void> {
    if (this.queue.length === 0 && this.inFlight === 0) return Promise.resolve();
    return new Promise((resolve) => this.idle.push(resolve));
  }

  private pump(): void {
    while (this.inFlight < this.options.concurrency && this.queue.length > 0) {
      const batch = this.take();
      this.inFlight++;
      void this.send(batch).finally(() => {
        this.inFlight--;
        this.pump();
        if (this.queue.length === 0 && this.inFlight === 0) for (const wake of this.idle.splice(0)) wake();
      });
    }
  }

  /** The oldest waiting requests, as many as fit one batch (at least one, however large). */
  private take(): Pending[] {
    const { spans, bytes } = this.options.limits;
    const batch = [this.queue.shift()!];
    let n = batch[0]!.spans;
    let size = batch[0]!.bytes.byteLength;
    while (this.queue.length > 0) {
      const next = this.queue[0]!;
      if (n + next.spans > spans || size + next.bytes.byteLength > bytes) break;
      batch.push(this.queue.shift()!);
      n += next.spans;
      size += next.bytes.byteLength;
    }
    return batch;
  }

  private async send(batch: Pending[]): Promise<void> {
    const spans = batch.reduce((sum, p) => sum + p.spans, 0);
    const gzipped = gzip(batch.length === 1 ? batch[0]!.bytes : Buffer.concat(batch.map((p) => p.bytes)));
    if (!this.platformDown && !this.abort.signal.aborted) {
      try {
        const result = await this.client.export(gzipped, spans, {
          gzipped: true,
          retries: this.options.retries,
          signal: this.abort.signal,
        });
        this.counters.forwarded += result.accepted;
        this.counters.dropped += result.rejected;
        const message = result.errorMessage || 'no reason given';
        if (result.rejected > 0)
          this.options.onWarning(`the platform rejected ${result.rejected} spans: ${message}`);
        // A lone request hears what became of its spans (OTLP's partial_success); in a batch of
        // several, which request's spans were rejected is not known: they are counted and said.
        const rejected = batch.length === 1 ? result.rejected : 0;
        for (const p of batch) p.settle({ taken: 'forwarded', rejected, message: rejected ? message : '' });
        return;
      } catch (error) {
        if (refusedForGood(error) && batch.length > 1) {
          // One exporter's bad request must not cost the others theirs: each is sent on its own.
          for (const p of batch) await this.send([p]);
          return;
        }
        if (refusedForGood(error)) {
          this.counters.dropped += spans;
          batch[0]!.settle({
            refused: 400,
            message: `the platform refused these spans: ${(error as Error).message}`,
          });
          return;
        }
        this.options.onWarning(
          `trace ingest unreachable: spooling until it is back (${(error as Error).message})`,
        );
      }
    }
    // Each request spooled on its own (gzipped again when it was sent with others), so that the
    // drainer can set one aside without the others. New batches skip the platform while the spool
    // holds something the drainer has yet to send, and only then: if nothing could be spooled (a
    // full or unwritable spool), the next batch tries the platform again.
    let spooled = false;
    for (const p of batch) {
      const alone = batch.length === 1 ? gzipped : gzip(p.bytes);
      const outcome = this.keep(alone, p.spans);
      if ('taken' in outcome) spooled = true;
      p.settle(outcome);
    }
    if (spooled) this.platformDown = true;
  }

  /** Into the spool, synced, or refused when it is full or cannot be written (the SDK tries again). */
  private keep(gzipped: Uint8Array, spans: number): Outcome {
    if (!this.spool.fits(gzipped.byteLength)) {
      this.counters.refused += spans;
      return {
        refused: 503,
        message: 'the gateway cannot reach trace ingest and its spool is full: try again later',
      };
    }
    try {
      this.spool.put(gzipped, spans);
    } catch (error) {
      this.counters.refused += spans;
      this.options.onWarning(`the spool cannot be written: ${(error as Error).message}`);
      return { refused: 503, message: 'the gateway cannot keep these spans now: try again later' };
    }
    this.counters.spooled += spans;
    this.options.onSpooled();
    return { taken: 'spooled', rejected: 0, message: '' };
  }
}
