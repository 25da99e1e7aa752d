// Sends the spool, oldest batch first, each removed only once the platform has taken it (a kill
// between the two sends that batch again on the next start: the platform keys spans by their ids).
// A batch the platform refuses for good (400) would block every batch behind it: it is set aside as
// `<name>.refused`, kept for the user to look at, and counted as dropped. One that fails otherwise
// (a 500, say) may mean the platform is away, or that this batch alone trips it: the next batch
// tells. If that one goes through, the failed one is put behind the others and tried again later;
// after MAX_STRIKES such turns it is set aside as `<name>.failing`, kept as well.

import { renameSync } from 'node:fs';
import { join } from 'node:path';
import type { TraceClient } from '../send/client.js';
import type { GatewayCounters } from './counters.js';
import { refusedForGood } from './forward.js';
import type { DiskSpool, SpooledFile } from './spool.js';

export type DrainResult = { sent: number; batches: number; error?: Error };

/** How often a batch may fail while batches behind it go through, before it is set aside. */
export const MAX_STRIKES = 5;

/** A batch the drainer cannot send (unreadable, or refused for good) renamed out of the way, if it can be. */
function setAside(spool: DiskSpool, file: SpooledFile, suffix: string): string {
  const name = `${file.name}.${suffix}`;
  try {
    renameSync(join(spool.dir, file.name), join(spool.dir, name));
  } catch {
    // not renamable: it stays as it is, and is looked at again on the next start
  }
  spool.forget(file);
  return name;
}

/**
 * Sends what the spool holds, until it is empty, a send fails (that error is returned), `stop()` says
 * so (between batches: one in flight is finished, so that what the platform took is not sent again),
 * or `signal` aborts (a batch in flight is then cut short, and sent again next time).
 */
export async function drainSpool(
  spool: DiskSpool,
  client: TraceClient,
  counters: GatewayCounters,
  options: { signal?: AbortSignal; stop?: () => boolean; onWarning: (message: string) => void },
): Promise<DrainResult> {
  let sent = 0;
  let batches = 0;
  /** A batch that just failed, while the one after it is tried to tell the platform from the batch. */
  let suspect: { file: SpooledFile; error: Error } | undefined;
  for (
    let file = spool.oldest(suspect?.file);
    file && !options.signal?.aborted && !options.stop?.();
    file = spool.oldest(suspect?.file)
  ) {
    let bytes: Buffer;
    try {
      bytes = spool.read(file);
    } catch (error) {
      const name = setAside(spool, file, 'unreadable');
      options.onWarning(`a spooled batch cannot be read (${(error as Error).message}): set aside as ${name}`);
      continue;
    }
    let result: Awaited<ReturnType<TraceClient['export']>>;
    try {
      result = await client.export(bytes, file.spans, { gzipped: true, retries: 0, signal: options.signal });
    } catch (error) {
      if (!refusedForGood(error)) {
        // A second failure in a row: the platform, not the batch. The suspect keeps its place.
        if (suspect || spool.count < 2) return { sent, batches, error: error as Error };
        suspect = { file, error: error as Error };
        continue;
      }
      const name = setAside(spool, file, 'refused');
      counters.dropped += file.spans;
      options.onWarning(
        `the platform refused a spooled batch of ${file.spans} spans (${(error as Error).message}): kept as ${name}`,
      );
      continue;
    }
    if (suspect) {
      const { file: failing, error } = suspect;
      suspect = undefined;
      if (spool.defer(failing) >= MAX_STRIKES) {
        const name = setAside(spool, failing, 'failing');
        counters.dropped += failing.spans;
        options.onWarning(
          `a spooled batch of ${failing.spans} spans failed ${MAX_STRIKES} times while others went through (${error.message}): kept as ${name}`,
        );
      }
    }
    counters.forwarded += result.accepted;
    counters.dropped += result.rejected;
    sent += result.accepted;
    batches++;
    try {
      spool.remove(file);
    } catch (error) {
      // Sent, but still on the disk: out of this run's count; the next start sends it again.
      spool.forget(file);
      options.onWarning(`a sent batch could not be removed from the spool (${(error as Error).message})`);
    }
  }
  // Nothing after the suspect to tell by: it stays, and its failure is the result.
  if (suspect) return { sent, batches, error: suspect.error };
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
  private stopping = false;
  /** Cuts a batch in flight short (a second Ctrl-C): it stays in the spool, to be sent again. */
  private readonly abort = new AbortController();

  constructor(
    private readonly spool: DiskSpool,
    private readonly client: TraceClient,
    private readonly counters: GatewayCounters,
    private readonly onBack: () => void,
    private readonly onWarning: (message: string) => void,
  ) {}

  start(): void {
    this.running ??= this.loop().catch((error) => {
      this.onWarning(`the spool is not sent any more: ${(error as Error).message}`);
    });
  }

  /** Something was spooled: look now, unless backing off. */
  poke(): void {
    if (this.waitingForWork) this.wake?.();
  }

  /** Stops after the batch in flight (if any) is sent. */
  async close(): Promise<void> {
    this.stopping = true;
    this.wake?.();
    await this.running;
  }

  /** Stops now: a batch in flight is cut short and stays in the spool. */
  abortNow(): void {
    this.stopping = true;
    this.abort.abort();
    this.wake?.();
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
    while (!this.stopping) {
      if (!this.spool.oldest()) {
        this.waitingForWork = true;
        await this.sleep(undefined);
        this.waitingForWork = false;
        continue;
      }
      const result = await drainSpool(this.spool, this.client, this.counters, {
        signal: this.abort.signal,
        stop: () => this.stopping,
        onWarning: this.onWarning,
      });
      if (!result.error) {
        backoff = 1000;
        this.onBack();
        continue;
      }
      if (this.stopping) return;
      await this.sleep(backoff * (0.5 + Math.random() / 2));
      backoff = Math.min(backoff * 2, 30_000);
    }
  }
}
