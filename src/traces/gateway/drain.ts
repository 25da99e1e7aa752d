// Sends the spool, oldest batch first, each removed only once the platform has taken it (a kill
// between the two sends that batch again on the next start: the platform keys spans by their ids).
// A batch the platform refuses for good (400) would block every batch behind it: it is set aside as
// `<name>.refused`, kept for the user to look at, and counted as dropped.

import { renameSync } from 'node:fs';
import { join } from 'node:path';
import type { TraceClient } from '../send/client.js';
import type { GatewayCounters } from './counters.js';
import { refusedForGood } from './forward.js';
import type { DiskSpool } from './spool.js';

export type DrainResult = { sent: number; batches: number; error?: Error };

/** Sends what the spool holds, until it is empty or a send fails (that error is returned). */
export async function drainSpool(
  spool: DiskSpool,
  client: TraceClient,
  counters: GatewayCounters,
  options: { signal?: AbortSignal; onWarning: (message: string) => void },
): Promise<DrainResult> {
  let sent = 0;
  let batches = 0;
  for (let file = spool.oldest(); file && !options.signal?.aborted; file = spool.oldest()) {
    try {
      const result = await client.export(spool.read(file), file.spans, {
        gzipped: true,
        retries: 0,
        signal: options.signal,
      });
      spool.remove(file);
      counters.forwarded += result.accepted;
      counters.dropped += result.rejected;
      sent += result.accepted;
      batches++;
    } catch (error) {
      if (!refusedForGood(error)) return { sent, batches, error: error as Error };
      renameSync(join(spool.dir, file.name), join(spool.dir, `${file.name}.refused`));
      spool.forget(file);
      counters.dropped += file.spans;
      options.onWarning(
        `the platform refused a spooled batch of ${file.spans} spans (${(error as Error).message}): kept as ${file.name}.refused`,
      );
    }
  }
  return { sent, batches };
}

/**
 * The gateway's drainer: sends the spool whenever it holds something, backing off while the platform
 * is away (1 s doubling to 30 s, with jitter, so that gateways restarted together do not knock at once).
 */
export class SpoolDrainer {
  private wake?: () => void;
  /** Set while waiting for something to send (not while backing off): what poke() cuts short. */
  private waitingForWork = false;
  private running?: Promise<void>;
  private readonly stop = new AbortController();

  constructor(
    private readonly spool: DiskSpool,
    private readonly client: TraceClient,
    private readonly counters: GatewayCounters,
    private readonly onBack: () => void,
    private readonly onWarning: (message: string) => void,
  ) {}

  start(): void {
    this.running ??= this.loop();
  }

  /** Something was spooled: look now, unless backing off. */
  poke(): void {
    if (this.waitingForWork) this.wake?.();
  }

  async close(): Promise<void> {
    this.stop.abort();
    this.wake?.();
    await this.running;
  }

  private sleep(ms: number | undefined): Promise<void> {
    return new Promise((resolve) => {
      const timer = ms === undefined ? undefined : setTimeout(done, ms);
      const self = this;
      function done() {
        if (timer) clearTimeout(timer);
        self.wake = undefined;
        resolve();
      }
      this.wake = done;
    });
  }

  private async loop(): Promise<void> {
    let backoff = 1000;
    while (!this.stop.signal.aborted) {
      if (!this.spool.oldest()) {
        this.waitingForWork = true;
        await this.sleep(undefined);
        this.waitingForWork = false;
        continue;
      }
      const result = await drainSpool(this.spool, this.client, this.counters, {
        signal: this.stop.signal,
        onWarning: this.onWarning,
      });
      if (!result.error) {
        backoff = 1000;
        this.onBack();
        continue;
      }
      if (this.stop.signal.aborted) return;
      await this.sleep(backoff * (0.5 + Math.random() / 2));
      backoff = Math.min(backoff * 2, 30_000);
    }
  }
}
