// The emulated Training API for models, checkpoints and logged trajectories, over HTTP: shapes of
// the contract, FastAPI-style 422s, 404s for unknown ids.

import { describe, expect, it } from 'vitest';
import { useEmulator } from '../helpers/emulator.js';

const { emu } = useEmulator();

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

async function createModel(name = 'agent-001', extra: Record<string, unknown> = {}) {
  const r = await emu.api('POST', '/preview/models', {
    project: 'demo',
    name,
    base_model: 'OpenPipe/Qwen3-14B-Instruct',
    ...extra,
  });
  expect(r.status).toBe(200);
  return r.body as {
    id: string;
    entity: string;
    project: string;
    name: string;
    base_model: string;
    run_id: string;
  };
}

describe('POST /preview/models', () => {
  it("creates a model in the key's team when no entity is given, with a step-0 checkpoint", async () => {
    const model = await createModel();
    expect(model).toEqual({
      id: expect.stringMatching(UUID),
      entity: 'local',
      project: 'demo',
      name: 'agent-001',
      base_model: 'OpenPipe/Qwen3-14B-Instruct',
      run_id: expect.any(String),
    });
    const page = await emu.api('GET', `/preview/models/${model.id}/checkpoints`);
    expect(page.body).toEqual({
      object: 'list',
      data: [{ id: expect.stringMatching(UUID), step: 0, metrics: {} }],
      first_id: page.body.data[0].id,
      last_id: page.body.data[0].id,
      has_more: false,
    });
  });

  it('returns the existing model with return_existing, and refuses a duplicate without it', async () => {
    const first = await createModel('m', { entity: 'team-a' });
    const again = await createModel('m', { entity: 'team-a', return_existing: true });
    expect(again.id).toBe(first.id);
    const duplicate = await emu.api('POST', '/preview/models', {
      entity: 'team-a',
      project: 'demo',
      name: 'm',
      base_model: 'OpenPipe/Qwen3-14B-Instruct',
    });
    expect(duplicate.status).toBe(409);
    // Same name in another entity is another model.
    expect((await createModel('m', { entity: 'team-b' })).id).not.toBe(first.id);
  });

  it('answers 422 with every schema problem, FastAPI style', async () => {
    const r = await emu.api('POST', '/preview/models', {
      project: 3,
      base_model: 'OpenPipe/Qwen3-14B-Instruct',
      return_existing: 'yes',
    });
    expect(r.status).toBe(422);
    expect(r.body.detail).toEqual([
      {
        type: 'string_type',
        loc: ['body', 'project'],
        msg: 'Input should be a valid string, not the number 3',
      },
      { type: 'missing', loc: ['body', 'name'], msg: 'Field required' },
      {
        type: 'bool_type',
        loc: ['body', 'return_existing'],
        msg: 'Input should be a valid boolean, not the string "yes"',
      },
    ]);
    expect((await emu.api('POST', '/preview/models')).body.detail).toEqual([
      { type: 'missing', loc: ['body'], msg: 'Field required' },
    ]);
    const badJson = await emu.api('POST', '/preview/models', '{"project": ');
    expect(badJson.status).toBe(422);
    expect(badJson.body.detail[0].type).toBe('json_invalid');
  });

  it('refuses a base model it cannot train', async () => {
    const r = await emu.api('POST', '/preview/models', { project: 'p', name: 'n', base_model: 'gpt-2' });
    expect(r.status).toBe(422);
    expect(r.body.detail[0].loc).toEqual(['body', 'base_model']);
    expect((await emu.api('GET', '/preview/base-models')).body).toEqual([
      'OpenPipe/Qwen3-14B-Instruct',
      'Qwen/Qwen3-30B-A3B-Instruct-2507',
    ]);
  });
});

describe('checkpoints', () => {
  it('pages with after/limit/order and says when there is more', async () => {
    const model = await createModel();
    await emu.control('POST', `/models/${model.id}/checkpoints`, { count: 25 });
    const first = (await emu.api('GET', `/preview/models/${model.id}/checkpoints?limit=10`)).body;
    expect(first.data.map((c: { step: number }) => c.step)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(first).toMatchObject({ has_more: true, first_id: first.data[0].id, last_id: first.data[9].id });
    const second = (
      await emu.api('GET', `/preview/models/${model.id}/checkpoints?limit=10&after=${first.last_id}`)
    ).body;
    expect(second.data[0].step).toBe(10);
    const desc = (await emu.api('GET', `/preview/models/${model.id}/checkpoints?limit=3&order=desc`)).body;
    expect(desc.data.map((c: { step: number }) => c.step)).toEqual([25, 24, 23]);
    expect(desc.data[0].metrics).toEqual(
      expect.objectContaining({ reward: expect.any(Number), loss: expect.any(Number) }),
    );
    const rest = (
      await emu.api('GET', `/preview/models/${model.id}/checkpoints?limit=100&after=${second.last_id}`)
    ).body;
    expect(rest.data).toHaveLength(6);
    expect(rest.has_more).toBe(false);
  });

  it('answers 422 for limit outside 1-100, a non-integer limit, an unknown order or cursor', async () => {
    const model = await createModel();
    const detail = async (qs: string) =>
      (await emu.api('GET', `/preview/models/${model.id}/checkpoints?${qs}`)).body.detail;
    expect(await detail('limit=0')).toEqual([
      {
        type: 'greater_than_equal',
        loc: ['query', 'limit'],
        msg: 'Input should be greater than or equal to 1',
      },
    ]);
    expect(await detail('limit=101')).toEqual([
      { type: 'less_than_equal', loc: ['query', 'limit'], msg: 'Input should be less than or equal to 100' },
    ]);
    expect((await detail('limit=ten'))[0].type).toBe('int_parsing');
    expect(await detail('order=newest')).toEqual([
      { type: 'enum', loc: ['query', 'order'], msg: "Input should be 'asc' or 'desc'" },
    ]);
    expect((await detail('after=nope'))[0].loc).toEqual(['query', 'after']);
    expect(await detail('limit=0&order=x')).toHaveLength(2);
  });

  it('deletes by step, reporting the steps that had no checkpoint', async () => {
    const model = await createModel();
    await emu.control('POST', `/models/${model.id}/checkpoints`, { count: 5 });
    const r = await emu.api('DELETE', `/preview/models/${model.id}/checkpoints`, { steps: [1, 3, 9] });
    expect(r.body).toEqual({ deleted_count: 2, not_found_steps: [9] });
    const left = (await emu.api('GET', `/preview/models/${model.id}/checkpoints`)).body.data.map(
      (c: { step: number }) => c.step,
    );
    expect(left).toEqual([0, 2, 4, 5]);
    expect(
      (await emu.api('DELETE', `/preview/models/${model.id}/checkpoints`, { steps: ['1'] })).status,
    ).toBe(422);
  });

  it('answers 404 for an unknown model on every route', async () => {
    const id = '11111111-2222-3333-4444-555555555555';
    for (const [method, path, body] of [
      ['GET', `/preview/models/${id}/checkpoints`, undefined],
      ['DELETE', `/preview/models/${id}/checkpoints`, { steps: [1] }],
      ['DELETE', `/preview/models/${id}`, undefined],
      ['POST', `/preview/models/${id}/log`, { split: 'train', trajectory_groups: [] }],
    ] as const) {
      const r = await emu.api(method, path, body);
      expect([path, r.status, r.body]).toEqual([path, 404, { detail: `Model ${id} not found` }]);
    }
  });
});

describe('DELETE /preview/models/{id}', () => {
  it('cascades to the checkpoints and answers what it deleted', async () => {
    const model = await createModel();
    await emu.control('POST', `/models/${model.id}/checkpoints`, { count: 4 });
    const r = await emu.api('DELETE', `/preview/models/${model.id}`);
    expect(r.body).toEqual({ model_id: model.id, deleted_checkpoints: 5, deleted_run: true });
    expect((await emu.api('GET', `/preview/models/${model.id}/checkpoints`)).status).toBe(404);
    expect((await emu.control('GET', '/state')).body).toMatchObject({ models: [], logs: 0, jobs: [] });
  });
});

describe('POST /preview/models/{id}/log', () => {
  it('stores valid trajectory groups and answers with counts', async () => {
    const model = await createModel();
    const groups = [
      {
        trajectories: [{ reward: 1, messages_and_choices: [{ role: 'user', content: 'hi' }] }, { reward: 0 }],
      },
    ];
    const r = await emu.api('POST', `/preview/models/${model.id}/log`, {
      split: 'val',
      trajectory_groups: groups,
    });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ split: 'val', groups: 1, trajectories: 2, metrics: { reward_mean: 0.5 } });
    const logs = (await emu.control('GET', '/logs')).body as {
      data: Array<{ split: string; trajectory_groups: unknown }>;
    };
    expect(logs.data).toEqual([
      expect.objectContaining({ model_id: model.id, split: 'val', trajectory_groups: groups }),
    ]);
  });

  it('answers 422 located inside the groups, as the OpenAPI document types them', async () => {
    const model = await createModel();
    const r = await emu.api('POST', `/preview/models/${model.id}/log`, {
      split: 'train',
      trajectory_groups: [
        { trajectories: [{ reward: 'high', messages_and_choices: [{ role: 'robot', content: 'x' }] }] },
        {},
      ],
    });
    expect(r.status).toBe(422);
    expect(r.body.detail.map((d: { loc: unknown[] }) => d.loc)).toEqual([
      ['body', 'trajectory_groups', 0, 'trajectories', 0, 'messages_and_choices', 0, 'role'],
      ['body', 'trajectory_groups', 0, 'trajectories', 0, 'reward'],
      ['body', 'trajectory_groups', 1, 'trajectories'],
    ]);
    expect((await emu.control('GET', '/logs')).body).toEqual({ data: [] });
  });
});
