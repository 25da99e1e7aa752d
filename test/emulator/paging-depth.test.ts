// Paging at depth (api-contract.md §2.1, §2.5): a cursor deep in a long list, in either order, the
// last page, an unknown cursor (422), an empty cursor (from the start), and a list changed between
// pages; then what a durable emulator reads on demand after a restart (jobs, their events, a model's
// checkpoints, the request record held until its answer) is all there.

import { describe, expect, it } from 'vitest';
import { call, GROUPS, MODEL, useDurable } from './durable-helpers.js';

const durable = useDurable();

type Page = {
  data: Array<{ id: string; step: number }>;
  first_id: string;
  last_id: string;
  has_more: boolean;
};

async function page(origin: string, path: string): Promise<Page> {
  const r = await call(origin, 'GET', `/training/v1/preview${path}`);
  expect(r.status).toBe(200);
  return r.body as Page;
}

describe('checkpoint pages at depth', () => {
  it('find a cursor in the middle of 10,000 in both orders, end with has_more false, refuse an unknown one', async () => {
    const emu = await durable.start(undefined);
    const { body: model } = await call(emu.origin, 'POST', '/training/v1/preview/models', MODEL);
    await call(emu.origin, 'POST', `/_emulator/models/${model.id}/checkpoints`, { count: 10_000 });
    const all = emu.state.models.checkpointsOf(model.id);
    expect(all.length).toBe(10_001);
    const base = `/models/${model.id}/checkpoints`;

    const middle = all[5_000]!;
    const asc = await page(emu.origin, `${base}?limit=3&after=${middle.id}`);
    expect(asc.data.map((c) => c.step)).toEqual([5_001, 5_002, 5_003]);
    expect(asc).toMatchObject({ first_id: all[5_001]!.id, last_id: all[5_003]!.id, has_more: true });

    const desc = await page(emu.origin, `${base}?limit=3&order=desc&after=${middle.id}`);
    expect(desc.data.map((c) => c.step)).toEqual([4_999, 4_998, 4_997]);

    const last = await page(emu.origin, `${base}?limit=100&after=${all[9_950]!.id}`);
    expect(last.data.length).toBe(50);
    expect(last.has_more).toBe(false);
    const past = await page(emu.origin, `${base}?after=${all.at(-1)!.id}`);
    expect(past).toMatchObject({ data: [], first_id: '', last_id: '', has_more: false });
    const descEnd = await page(emu.origin, `${base}?order=desc&after=${all[0]!.id}`);
    expect(descEnd).toMatchObject({ data: [], has_more: false });
    // "" is the last_id of an empty page: from the start.
    expect((await page(emu.origin, `${base}?limit=2&after=`)).data.map((c) => c.step)).toEqual([0, 1]);

    const unknown = await call(emu.origin, 'GET', `/training/v1/preview${base}?after=nope`);
    expect(unknown.status).toBe(422);
    expect(unknown.body.detail[0].loc).toEqual(['query', 'after']);

    // Steps deleted between pages: a cursor still there is found where it now is; one deleted is refused.
    await call(emu.origin, 'DELETE', `/training/v1/preview${base}`, { steps: [10, 5_002] });
    const after = await page(emu.origin, `${base}?limit=2&after=${middle.id}`);
    expect(after.data.map((c) => c.step)).toEqual([5_001, 5_003]);
    const gone = await call(emu.origin, 'GET', `/training/v1/preview${base}?after=${all[10]!.id}`);
    expect(gone.status).toBe(422);
    // And added after: the cursor index extends over them.
    await call(emu.origin, 'POST', `/_emulator/models/${model.id}/checkpoints`, { count: 2 });
    const tail = await page(emu.origin, `${base}?after=${all.at(-1)!.id}`);
    expect(tail.data.map((c) => c.step)).toEqual([10_001, 10_002]);
  });
});

describe('a durable emulator after a restart', () => {
  it('reads jobs, their events and checkpoints when asked, and has every request it answered', async () => {
    const dir = durable.stateDir();
    const first = await durable.start(dir);
    const { body: model } = await call(first.origin, 'POST', '/training/v1/preview/models', MODEL);
    const jobs: string[] = [];
    for (let i = 0; i < 3; i++)
      jobs.push(
        (
          await call(first.origin, 'POST', '/training/v1/preview/training-jobs', {
            model_id: model.id,
            trajectory_groups: GROUPS,
          })
        ).body.id,
      );
    // Step time 5 ms: let them end, then one request brings them to it.
    await new Promise((resolve) => setTimeout(resolve, 60));
    const before = await page(first.origin, `/training-jobs/${jobs[1]}/events?limit=100`);
    expect(before.data.length).toBe(3);
    const requestsBefore = first.requestLog.total;
    await durable.stop(first);

    const second = await durable.start(dir);
    const events = await page(
      second.origin,
      `/training-jobs/${jobs[1]}/events?limit=1&after=${before.data[0]!.id}`,
    );
    expect(events.data).toEqual([before.data[1]]);
    expect(
      (await call(second.origin, 'GET', `/training/v1/preview/training-jobs/${jobs[2]}`)).body.status,
    ).toBe('succeeded');
    expect((await call(second.origin, 'GET', '/training/v1/preview/training-jobs/nope')).status).toBe(404);
    const checkpoints = await page(second.origin, `/models/${model.id}/checkpoints?limit=100`);
    expect(checkpoints.data.map((c) => c.step)).toEqual([0, 1, 2, 3]);
    const counts = second.state.counts();
    expect(counts).toMatchObject({ models: 1, jobs: 3, events: 9, checkpoints: 4 });
    // Every request the first emulator answered is in the record, completed.
    const record = second.requestLog.list();
    expect(record.length).toBeGreaterThanOrEqual(requestsBefore);
    expect(record.slice(0, requestsBefore).every((r) => r.status === 200)).toBe(true);
  });
});
