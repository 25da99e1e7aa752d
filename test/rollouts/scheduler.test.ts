// The rollout loop's scheduler (src/rollouts/scheduler.ts) with fake work: order, the concurrency
// bound, stopping, and a turn given back exactly once however a slot ends.

import { describe, expect, it } from 'vitest';
import { AdaptiveLimit } from '../../src/rollouts/adaptive-limit.js';
import { Permit, runSlots } from '../../src/rollouts/scheduler.js';

/** A slot's work that ends when the test says so. */
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { open, opened };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('runSlots', () => {
  it('starts slots in order, never more at once than the limit allows, and waits for all', async () => {
    const limit = new AdaptiveLimit(2);
    const gates = [gate(), gate(), gate(), gate(), gate()];
    const started: number[] = [];
    const ended: number[] = [];
    const done = runSlots([0, 1, 2, 3, 4], limit, new AbortController().signal, async (slot, permit) => {
      started.push(slot);
      await gates[slot]!.opened;
      permit.release('ok');
      ended.push(slot);
    });
    await settle();
    expect(started).toEqual([0, 1]);
    gates[1]!.open();
    await settle();
    expect(started).toEqual([0, 1, 2]);
    gates[0]!.open();
    gates[2]!.open();
    await settle();
    expect(started).toEqual([0, 1, 2, 3, 4]);
    let finished = false;
    void done.then(() => {
      finished = true;
    });
    gates[3]!.open();
    await settle();
    expect(finished).toBe(false);
    gates[4]!.open();
    await done;
    expect(ended.sort()).toEqual([0, 1, 2, 3, 4]);
    limit.close();
  });

  it('starts nothing once stopped, and lets what runs finish', async () => {
    const limit = new AdaptiveLimit(1);
    const stop = new AbortController();
    const started: number[] = [];
    const first = gate();
    const done = runSlots([0, 1, 2], limit, stop.signal, async (slot) => {
      started.push(slot);
      if (slot === 0) await first.opened;
    });
    await settle();
    stop.abort();
    limit.wakeAll();
    first.open();
    await done;
    expect(started).toEqual([0]);
    limit.close();
  });

  it('gives the turn back for a slot that ended without saying how (it stopped, or threw)', async () => {
    const limit = new AdaptiveLimit(1);
    const started: number[] = [];
    const failed = new Error('a slot that failed');
    const run = runSlots([0, 1, 2], limit, new AbortController().signal, async (slot) => {
      started.push(slot);
      if (slot === 1) throw failed;
    });
    // What a slot let escape is thrown, once every slot has ended.
    await expect(run).rejects.toBe(failed);
    // With one turn, a turn kept by any slot would have left the next waiting for ever.
    expect(started).toEqual([0, 1, 2]);
    limit.close();
  });
});

describe('Permit', () => {
  it('is given back once, however often release is called', async () => {
    const limit = new AdaptiveLimit(1);
    await limit.acquire();
    const permit = new Permit(limit);
    permit.release('ok');
    permit.release('failed');
    // One turn in all: a second release would have let two requests in at once.
    await limit.acquire();
    let second = false;
    void limit.acquire().then(() => {
      second = true;
    });
    await settle();
    expect(second).toBe(false);
    limit.wakeAll();
    limit.close();
  });

  it('takes a turn again after a throttled release, once the pause has passed', async () => {
    let now = 1_000;
    const limit = new AdaptiveLimit(4, () => now);
    await limit.acquire();
    const permit = new Permit(limit);
    permit.release('throttled', 0);
    expect(limit.current).toBe(2);
    await permit.again();
    // Taken: released again it gives the turn back, and the window then widens on 'ok'.
    permit.release('ok');
    expect(limit.current).toBe(2);
    now += 1;
    limit.close();
  });
});
