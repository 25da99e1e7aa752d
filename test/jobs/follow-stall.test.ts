// followEvents with stallMs, on a clock the test moves: a pause ends at the stall, the events are looked
// at once more, and only a look that finds nothing new ends the follow as stalled.

import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { TrainingClient } from '../../src/api/training.js';
import type { JobEvent, Page } from '../../src/api/types.js';
import { followEvents } from '../../src/jobs/follow.js';

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(0);
});
afterEach(() => vi.useRealTimers());

/** A client whose n-th poll answers pages[n] (an empty page after them), at the time it is asked. */
function client(pages: JobEvent[][]): { training: TrainingClient; polls: number[] } {
  const polls: number[] = [];
  const listEvents = async (): Promise<Page<JobEvent>> => {
    polls.push(Date.now());
    return { object: 'list', data: pages[polls.length - 1] ?? [], has_more: false };
  };
  return { training: { listEvents } as unknown as TrainingClient, polls };
}

const follow = (training: TrainingClient, events: JobEvent[], stallMs: number, intervalMs: number) =>
  followEvents(training, 'job', {
    intervalMs,
    stallMs,
    signal: new AbortController().signal,
    requestTimeoutMs: 60_000,
    // The pause moves the clock instead of waiting.
    sleep: async (ms) => {
      vi.setSystemTime(Date.now() + ms);
    },
    onEvent: (e) => events.push(e),
  });

describe('--stall in the follow', () => {
  it('looks once more at the stall: an event found then restarts the count', async () => {
    const started: JobEvent = { id: 'e1', type: 'training_started', data: { num_sequences: 3 } };
    const { training, polls } = client([[], [started]]);
    const events: JobEvent[] = [];
    const { end, cursor } = await follow(training, events, 100, 1000);
    expect(end).toEqual({ kind: 'stalled' });
    expect(events).toEqual([started]);
    expect(cursor).toBe('e1');
    // Polled at 0, then at the stall (100, the event), then 100 after that event (nothing: stalled).
    expect(polls).toEqual([0, 100, 200]);
  });

  it('polls at its interval when that comes before the stall', async () => {
    const { training, polls } = client([]);
    const { end } = await follow(training, [], 250, 100);
    expect(end).toEqual({ kind: 'stalled' });
    expect(polls).toEqual([0, 100, 200, 250]);
  });
});
