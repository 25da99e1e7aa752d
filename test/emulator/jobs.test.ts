// The emulated training jobs: creation (validated as the OpenAPI document says), the seeded schedule
// of events, a checkpoint per step, failures on plan, and event pages.

import { describe, expect, it } from 'vitest';
import { JobStore } from '../../src/emulator/store/jobs.js';
import { ModelStore } from '../../src/emulator/store/models.js';
import { useEmulator } from '../helpers/emulator.js';
import { patience } from '../helpers/patience.js';

const { emu } = useEmulator({ stepMs: 20, seed: 7 });

async function model(): Promise<string> {
  return (
    await emu.api('POST', '/preview/models', {
      project: 'p',
      name: `m${Math.random()}`,
      base_model: 'OpenPipe/Qwen3-14B-Instruct',
    })
  ).body.id;
}

const groups = (n: number) =>
  Array.from({ length: n }, (_, i) => ({ trajectories: [{ reward: i / n }, { reward: 0 }] }));

async function events(id: string) {
  return (await emu.api('GET', `/preview/training-jobs/${id}/events?limit=100`)).body.data as Array<{
    id: string;
    type: string;
    data: Record<string, unknown>;
  }>;
}

async function finished(id: string) {
  let job: { status: string } = { status: 'queued' };
  // Polled until it ends, within a bound for a busy machine (test/helpers/patience.ts).
  const deadline = Date.now() + patience(30_000);
  while (!['succeeded', 'failed'].includes(job.status) && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 20));
    job = (await emu.api('GET', `/preview/training-jobs/${id}`)).body;
  }
  return job;
}

describe('RL and SFT jobs', () => {
  it('run their schedule: started (num_sequences), a gradient step per group with metrics and a checkpoint, ended', async () => {
    const modelId = await model();
    const created = await emu.api('POST', '/preview/training-jobs', {
      model_id: modelId,
      trajectory_groups: groups(3),
      experimental_config: { learning_rate: 1e-5 },
    });
    expect(created.status).toBe(200);
    expect(created.body).toMatchObject({
      id: expect.any(String),
      status: 'queued',
      kind: 'rl',
      model_id: modelId,
      error_message: null,
    });
    const job = await finished(created.body.id);
    expect(job).toMatchObject({
      status: 'succeeded',
      training_start: expect.any(String),
      training_end: expect.any(String),
    });
    const list = await events(created.body.id);
    expect(list.map((e) => e.type)).toEqual([
      'training_started',
      'gradient_step',
      'gradient_step',
      'gradient_step',
      'training_ended',
    ]);
    expect(list[0]!.data).toEqual({ num_sequences: 3 });
    for (const key of [
      'loss',
      'reward',
      'reward_std_dev',
      'grad_norm',
      'learning_rate',
      'entropy',
      'kl_div',
      'num_trajectories',
      'tokens_per_second',
      'gradient_step',
    ]) {
      expect(list[1]!.data).toHaveProperty(key);
    }
    expect(list[1]!.data.learning_rate).toBe(1e-5);
    expect(list.slice(1, 4).map((e) => e.data.gradient_step)).toEqual([1, 2, 3]);
    const checkpoints = (await emu.api('GET', `/preview/models/${modelId}/checkpoints`)).body.data;
    expect(checkpoints.map((c: { step: number }) => c.step)).toEqual([0, 1, 2, 3]);
    expect(checkpoints[3].metrics).toEqual({ reward: list[3]!.data.reward, loss: list[3]!.data.loss });
  });

  it('SFT jobs step too, without rewards, and refuse a data URL they cannot resolve', async () => {
    const modelId = await model();
    const created = await emu.api('POST', '/preview/sft-training-jobs', {
      model_id: modelId,
      training_data_url: 'wandb-artifact:///local/p/train:v0',
      config: { batch_size: 'auto', learning_rate: [1e-5, 2e-5] },
    });
    expect(created.body.kind).toBe('sft');
    await finished(created.body.id);
    const list = await events(created.body.id);
    expect(list).toHaveLength(8);
    expect(list[1]!.data).not.toHaveProperty('reward');
    const bad = await emu.api('POST', '/preview/sft-training-jobs', {
      model_id: modelId,
      training_data_url: 'https://example.com/x.jsonl',
    });
    expect(bad.status).toBe(400);
  });

  it('fail part-way when planned to, with the message', async () => {
    const modelId = await model();
    await emu.control('POST', '/job-plans', {
      steps: 5,
      fail_at_step: 3,
      error_message: 'CUDA out of memory',
    });
    const created = await emu.api('POST', '/preview/training-jobs', {
      model_id: modelId,
      trajectory_groups: groups(1),
    });
    const job = await finished(created.body.id);
    expect(job).toMatchObject({ status: 'failed', error_message: 'CUDA out of memory' });
    expect((await events(created.body.id)).map((e) => e.type)).toEqual([
      'training_started',
      'gradient_step',
      'gradient_step',
      'training_failed',
    ]);
    expect((await events(created.body.id)).at(-1)!.data).toEqual({ error_message: 'CUDA out of memory' });
  });

  it('are queued first and follow the clock: nothing happens before its time', async () => {
    await emu.control('POST', '/job-plans', { step_ms: 60_000 });
    try {
      const created = await emu.api('POST', '/preview/training-jobs', {
        model_id: await model(),
        trajectory_groups: groups(2),
      });
      expect((await emu.api('GET', `/preview/training-jobs/${created.body.id}`)).body.status).toBe('queued');
      expect(await events(created.body.id)).toEqual([]);
    } finally {
      await emu.control('POST', '/job-plans', { step_ms: 20 });
    }
  });

  it('have ids and metrics that repeat for the same seed', async () => {
    const run = async () => {
      await emu.reset();
      const created = await emu.api('POST', '/preview/training-jobs', {
        model_id: await model(),
        trajectory_groups: groups(2),
      });
      await finished(created.body.id);
      return { id: created.body.id, events: await events(created.body.id) };
    };
    const [a, b] = [await run(), await run()];
    expect(b.id).toBe(a.id);
    expect(b.events).toEqual(a.events);
  });
});

describe('validation and lookups', () => {
  it('answers 422 for bodies the OpenAPI document refuses', async () => {
    const detail = async (path: string, body: unknown) =>
      (await emu.api('POST', path, body)).body.detail.map((d: { loc: unknown[]; type: string }) => [
        d.loc.join('.'),
        d.type,
      ]);
    expect(
      await detail('/preview/training-jobs', { model_id: 'not-a-uuid', trajectory_groups: [{}] }),
    ).toEqual([
      ['body.model_id', 'uuid_parsing'],
      ['body.trajectory_groups.0.trajectories', 'missing'],
    ]);
    expect(
      await detail('/preview/training-jobs', {
        model_id: '11111111-2222-3333-4444-555555555555',
        trajectory_groups: [],
        experimental_config: { loss_fn: 'dpo', learning_rate: 'fast' },
      }),
    ).toEqual([
      ['body.experimental_config.learning_rate', 'float_type'],
      ['body.experimental_config.loss_fn', 'literal_error'],
    ]);
    expect(
      await detail('/preview/sft-training-jobs', {
        model_id: '11111111-2222-3333-4444-555555555555',
        config: { batch_size: 'big' },
      }),
    ).toEqual([
      ['body.training_data_url', 'missing'],
      ['body.config.batch_size', 'union_type'],
    ]);
  });

  it('answers 404 for an unknown model or job', async () => {
    const id = '11111111-2222-3333-4444-555555555555';
    expect(
      (await emu.api('POST', '/preview/training-jobs', { model_id: id, trajectory_groups: groups(1) }))
        .status,
    ).toBe(404);
    expect(await emu.api('GET', `/preview/training-jobs/${id}`)).toEqual({
      status: 404,
      body: { detail: `Training job ${id} not found` },
    });
    expect((await emu.api('GET', `/preview/training-jobs/${id}/events`)).status).toBe(404);
  });

  it('pages events with after/limit, oldest first, and refuses a bad cursor or limit', async () => {
    await emu.control('POST', '/job-plans', { steps: 48 });
    const created = await emu.api('POST', '/preview/training-jobs', {
      model_id: await model(),
      trajectory_groups: groups(1),
    });
    await finished(created.body.id);
    const first = (await emu.api('GET', `/preview/training-jobs/${created.body.id}/events?limit=30`)).body;
    expect(first.data).toHaveLength(30);
    expect(first.has_more).toBe(true);
    const rest = (
      await emu.api('GET', `/preview/training-jobs/${created.body.id}/events?limit=30&after=${first.last_id}`)
    ).body;
    expect(rest.data).toHaveLength(20);
    expect(rest.has_more).toBe(false);
    expect(rest.data.at(-1).type).toBe('training_ended');
    expect((await emu.api('GET', `/preview/training-jobs/${created.body.id}/events?after=zzz`)).status).toBe(
      422,
    );
    expect((await emu.api('GET', `/preview/training-jobs/${created.body.id}/events?limit=101`)).status).toBe(
      422,
    );
  });
});

describe('the schedule, on a clock of our own', () => {
  it('emits each event exactly at its time', () => {
    const models = new ModelStore();
    const model = models.create({ entity: 'e', project: 'p', name: 'n', base_model: 'b' });
    const jobs = new JobStore(models, 1, 100);
    const job = jobs.create(
      { kind: 'rl', model_id: model.id, groups: 2, trajectories: 4, learningRate: 1e-6 },
      1000,
    );
    const types = () => job.events.map((e) => e.type);
    jobs.advance(1099);
    expect(types()).toEqual([]);
    jobs.advance(1100);
    expect(types()).toEqual(['training_started']);
    jobs.advance(1299);
    expect(types()).toEqual(['training_started', 'gradient_step']);
    jobs.stepMs = 1; // a new pace is for new jobs only
    jobs.advance(1300);
    expect(types()).toEqual(['training_started', 'gradient_step', 'gradient_step']);
    jobs.advance(1400);
    expect(types().at(-1)).toBe('training_ended');
    expect(job).toMatchObject({ status: 'succeeded', startedAt: 1100, endedAt: 1400 });
    expect(models.checkpointsOf(model.id).map((c) => c.step)).toEqual([0, 1, 2]);
  });

  it('refuses a plan it cannot follow', async () => {
    for (const plan of [
      { steps: 0 },
      { steps: 2, fail_at_step: 3 },
      { times: 'x', steps: 1 },
      { step_ms: -1 },
    ]) {
      expect((await emu.control('POST', '/job-plans', plan)).status).toBe(422);
    }
  });
});
