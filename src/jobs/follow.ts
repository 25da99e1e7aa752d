// Following a job's events with the `after` cursor, polling until a terminal event. Network trouble
// and 5xx answers do not end the wait: it backs off and tries again with the same cursor, so no event
// is skipped or seen twice. This loop is the only retry layer (its requests are sent with retries: 0),
// and its waits end early on Ctrl-C, at the deadline, and when the job stalls (no new event for
// `stallMs`, however the polls went: a server that answers 503 for an hour is a stall too).
//
// An event is handed on once, by its id, whatever the server sends: one that ignores the cursor and
// sends a page again gets its repeats dropped (said once), and a page with nothing new waits the
// interval before the next poll even when it says there is more, so such a server is not hammered.
// Only the ids of the last FOLLOW_RECENT_IDS events are kept (limits.ts): a repeat is of a recent
// page, and a follow of a job with millions of events stays small.

import { FOLLOW_RECENT_IDS } from '../api/limits.js';
import type { TrainingClient } from '../api/training.js';
import type { JobEvent } from '../api/types.js';
import { ApiError, NetworkError } from '../errors/errors.js';
import { TERMINAL_EVENTS } from './state.js';

export type FollowEnd =
  | { kind: 'terminal'; event: JobEvent }
  /** Resumed after the last event of a job that had already ended (known from the job's status). */
  | { kind: 'already-ended'; status: string }
  | { kind: 'timeout' }
  /** No new event for stallMs. */
  | { kind: 'stalled' }
  | { kind: 'interrupted' };

export interface FollowOptions {
  after?: string;
  /** Events per poll (1-100). */
  pageSize?: number;
  intervalMs: number;
  /** Epoch ms after which the follow ends with 'timeout'. */
  deadline?: number;
  /** How long without a new event ends the follow with 'stalled' (counted from its start). */
  stallMs?: number;
  /** Aborted by Ctrl-C (or when nobody reads the output any more). */
  signal: AbortSignal;
  /** Per-request timeout, shortened near the deadline. */
  requestTimeoutMs: number;
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  onEvent: (event: JobEvent) => void;
  /** Told when a poll failed and will be tried again. */
  onTrouble?: (message: string) => void;
  /** The ids already handed on (default: the last FOLLOW_RECENT_IDS of this follow). */
  seen?: RecentIds;
}

const MAX_BACKOFF_MS = 30_000;
/** How much longer than the stall a poll under way then may take: the stall is judged on an answer. */
const STALL_GRACE_MS = 5000;
const ENDED = new Set(['succeeded', 'failed']);

/** A set of the last `max` ids added: the oldest goes when a new one comes (a Set keeps their order). */
export class RecentIds {
  private readonly ids = new Set<string>();
  constructor(private readonly max: number) {}

  has(id: string): boolean {
    return this.ids.has(id);
  }

  add(id: string): void {
    this.ids.add(id);
    if (this.ids.size > this.max) this.ids.delete(this.ids.values().next().value as string);
  }

  get size(): number {
    return this.ids.size;
  }
}

function isTransient(error: unknown): boolean {
  return (
    error instanceof NetworkError ||
    (error instanceof ApiError && (error.status >= 500 || error.status === 429 || error.status === 408))
  );
}

export async function followEvents(
  training: TrainingClient,
  jobId: string,
  o: FollowOptions,
): Promise<{ end: FollowEnd; cursor: string | undefined }> {
  let cursor = o.after;
  let failures = 0;
  const seen = o.seen ?? new RecentIds(FOLLOW_RECENT_IDS);
  let repeatsSaid = false;
  // Resuming from a cursor: if nothing comes after it, the job may have ended already, and then
  // nothing ever will. The job's status (when the server reports one) settles it, once.
  let checkEnded = o.after !== undefined;
  let lastNew = Date.now();
  const untilDeadline = () => (o.deadline === undefined ? Number.POSITIVE_INFINITY : o.deadline - Date.now());
  const untilStall = () =>
    o.stallMs === undefined ? Number.POSITIVE_INFINITY : lastNew + o.stallMs - Date.now();
  // Pauses end at whichever comes first; at the stall, the events are looked at once more before the
  // follow ends, and that look gets a little time of its own (never beyond the deadline).
  const remaining = () => Math.min(untilDeadline(), untilStall());
  const grace = Math.min(o.stallMs ?? 0, STALL_GRACE_MS);
  const poll = () => ({
    signal: o.signal,
    retries: 0,
    timeoutMs: Math.max(1, Math.min(o.requestTimeoutMs, untilDeadline(), untilStall() + grace)),
  });
  const pause = async (ms: number) => {
    const wait = Math.min(ms, remaining());
    if (wait > 0) await o.sleep(wait, o.signal);
  };
  for (;;) {
    if (o.signal.aborted) return { end: { kind: 'interrupted' }, cursor };
    if (untilDeadline() <= 0) return { end: { kind: 'timeout' }, cursor };
    try {
      const page = await training.listEvents(jobId, { after: cursor, limit: o.pageSize ?? 100 }, poll());
      failures = 0;
      let fresh = 0;
      for (const event of page.data) {
        if (seen.has(event.id)) continue;
        seen.add(event.id);
        fresh++;
        lastNew = Date.now();
        cursor = event.id;
        o.onEvent(event);
        if (TERMINAL_EVENTS.has(event.type)) return { end: { kind: 'terminal', event }, cursor };
      }
      if (fresh < page.data.length && !repeatsSaid) {
        repeatsSaid = true;
        o.onTrouble?.(
          `the server sent again ${page.data.length - fresh} event(s) already shown (after=${cursor ?? ''}); they are skipped`,
        );
      }
      if (fresh > 0) checkEnded = false;
      else if (checkEnded) {
        checkEnded = false;
        const status = (await training.getJob(jobId, poll())).status;
        if (status && ENDED.has(status)) return { end: { kind: 'already-ended', status }, cursor };
      }
      if (fresh === 0 && untilStall() <= 0) return { end: { kind: 'stalled' }, cursor };
      if (!page.has_more || fresh === 0) await pause(o.intervalMs);
    } catch (error) {
      if (o.signal.aborted) return { end: { kind: 'interrupted' }, cursor };
      // A poll cut short by the deadline is the deadline, not trouble to report; one that failed once
      // the stall had come was the last look.
      if (untilDeadline() <= 0) return { end: { kind: 'timeout' }, cursor };
      if (untilStall() <= 0) return { end: { kind: 'stalled' }, cursor };
      if (!isTransient(error)) throw error;
      failures++;
      const delay = Math.min(MAX_BACKOFF_MS, 1000 * 2 ** (failures - 1));
      o.onTrouble?.(
        `${(error as Error).message}; still waiting, next try in ${Math.round(delay / 100) / 10}s`,
      );
      await pause(delay);
    }
  }
}
