// A job's metrics follow the data it trains on (issue 31): an RL job's reward moves from where the
// model was toward the mean reward of the submitted trajectories, an SFT job's loss toward a level set
// by its data; the same seed gives the same numbers, and a restarted durable emulator reports the same.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sftTargetLoss, UNTRAINED_REWARD } from '../../src/emulator/metrics.js';
import { startTestEmulator, type TestEmulator, useEmulator } from '../helpers/emulator.js';
import { writeArithmeticTasks } from '../helpers/tasks.js';
import { waitFor } from '../helpers/wait.js';
import { call, MODEL, useDurable } from './durable-helpers.js';

const fixture = useEmulator({ stepMs: 2, seed: 31 });
const { emu } = fixture;
const { stateDir, ...durable } = useDurable();

type Step = Record<string, number>;

/**
 * `n` groups of four trajectories whose rewards average `mean` (mean ± d, mean ± d/2): spread, as
 * sampled rewards are, and within [0, 1].
 */
function groupsAveraging(mean: number, n: number) {
  const d = Math.min(0.1, mean, 1 - mean);
  return Array.from({ length: n }, () => ({
    trajectories: [mean + d, mean - d, mean + d / 2, mean - d / 2].map((reward) => ({
      reward,
      messages_and_choices: [{ role: 'user', content: 'q' }],
    })),
  }));
}

async function newModel(e: TestEmulator = emu): Promise<string> {
  return (await e.api('POST', '/preview/models', { ...MODEL, name: `m${Math.random()}` })).body.id;
}

/** The gradient_step data of a job, once it has ended. */
async function stepsOf(e: TestEmulator, jobId: string): Promise<Step[]> {
  const events = async () =>
    (await e.api('GET', `/preview/training-jobs/${jobId}/events?limit=100`)).body.data as Array<{
      type: string;
      data: Step;
    }>;
  await waitFor(
    async () => (await events()).some((ev) => ev.type === 'training_ended'),
    undefined,
    'job end',
  );
  return (await events()).filter((ev) => ev.type === 'gradient_step').map((ev) => ev.data);
}

async function rlJob(e: TestEmulator, modelId: string, groups: unknown[]): Promise<Step[]> {
  const created = await e.api('POST', '/preview/training-jobs', {
    model_id: modelId,
    trajectory_groups: groups,
  });
  expect(created.status).toBe(200);
  return stepsOf(e, created.body.id);
}

async function sftJob(e: TestEmulator, modelId: string, url: string): Promise<Step[]> {
  const created = await e.api('POST', '/preview/sft-training-jobs', {
    model_id: modelId,
    training_data_url: url,
  });
  expect(created.status).toBe(200);
  return stepsOf(e, created.body.id);
}

describe('RL job metrics', () => {
  it.each([0.94, 0.1])('end at the mean reward of the groups trained on (%s)', async (mean) => {
    const modelId = await newModel();
    const steps = await rlJob(emu, modelId, groupsAveraging(mean, 6));
    expect(steps).toHaveLength(6);
    const rewards = steps.map((s) => s.reward!);
    expect(Math.abs(rewards.at(-1)! - mean)).toBeLessThanOrEqual(0.05);
    // From where the untrained model was, toward the data: the first step is on the way.
    expect(Math.abs(rewards[0]! - mean)).toBeLessThan(Math.abs(UNTRAINED_REWARD - mean) + 0.05);
    // The contract's keys, and the spread of the data as reward_std_dev.
    for (const key of ['loss', 'reward_std_dev', 'num_groups_submitted', 'num_trajectories', 'gradient_step'])
      expect(steps.at(-1)).toHaveProperty(key);
    expect(steps.at(-1)!.reward_std_dev).toBeLessThan(0.15);
    // The checkpoints the job made carry the same reward (what `checkpoints list` shows).
    const checkpoints = (await emu.api('GET', `/preview/models/${modelId}/checkpoints`)).body.data as Array<{
      step: number;
      metrics: Step;
    }>;
    expect(checkpoints.map((c) => c.metrics.reward ?? null)).toEqual([null, ...rewards]);
  });

  it('count a trajectory without a reward as 0.0, and start the next job where the model was', async () => {
    const modelId = await newModel();
    // Rewards 1, 1, 1 and none (0.0): a mean of 0.75.
    const groups = [{ trajectories: [{ reward: 1 }, { reward: 1 }] }, { trajectories: [{ reward: 1 }, {}] }];
    const first = await rlJob(emu, modelId, groups);
    const state = (await emu.control('GET', '/state')).body as {
      jobs: Array<{ data: { reward: number }; start: { reward: number } }>;
    };
    expect(state.jobs[0]).toMatchObject({ data: { reward: 0.75 }, start: { reward: UNTRAINED_REWARD } });
    expect(Math.abs(first.at(-1)!.reward! - 0.75)).toBeLessThanOrEqual(0.03);
    // A job on groups averaging 0.1 starts from the model's 0.75, falls, and ends at 0.1.
    const second = await rlJob(emu, modelId, groupsAveraging(0.1, 5));
    expect(second[0]!.reward).toBeGreaterThan(0.2);
    expect(Math.abs(second.at(-1)!.reward! - 0.1)).toBeLessThanOrEqual(0.05);
  });

  it('are the same for the same seed, and differ for another', async () => {
    const run = async (seed: number) => {
      const e = await startTestEmulator({ seed, stepMs: 1 });
      try {
        const modelId = await newModel(e);
        return [
          await rlJob(e, modelId, groupsAveraging(0.94, 4)),
          await sftJob(e, modelId, 'wandb-artifact:///t/p/data:v0'),
        ];
      } finally {
        await e.close();
      }
    };
    const [a, b, c] = [await run(5), await run(5), await run(6)];
    expect(b).toEqual(a);
    expect(c[0]!.map((s) => s.reward)).not.toEqual(a[0]!.map((s) => s.reward));
  });
});

describe('aip train rl on the emulator', () => {
  it('sees each job report the mean reward its iteration sampled', async () => {
    await fixture.run('models create --name agent --base-model OpenPipe/Qwen3-14B-Instruct -q');
    await emu.control('POST', '/job-plans', { steps: 2, times: 20 });
    const tasks = writeArithmeticTasks(join(fixture.dir, 'tasks.jsonl'));
    const runDir = join(fixture.dir, 'run');
    const r = await fixture.run(
      [
        'train',
        'rl',
        '--model',
        'agent',
        '--tasks',
        tasks,
        '--reward',
        'exact',
        '-K',
        '4',
        '--seed',
        '7',
      ].concat(['--steps', '3', '--interval', '0.01', '--run-dir', runDir]),
    );
    expect([r.code, r.stderr]).toMatchObject([0, expect.any(String)]);
    const iterations = (
      JSON.parse(readFileSync(join(runDir, 'run.json'), 'utf8')) as {
        iterations: Array<{ job_id: string; rollouts: { mean_reward: number } }>;
      }
    ).iterations;
    expect(iterations).toHaveLength(3);
    for (const iteration of iterations) {
      const steps = await stepsOf(emu, iteration.job_id);
      expect(Math.abs(steps.at(-1)!.reward! - iteration.rollouts.mean_reward)).toBeLessThanOrEqual(0.05);
    }
  });
});

describe('SFT job metrics', () => {
  it("fall toward the loss the job's data sets, a level of its own for each data set", async () => {
    const urls = ['wandb-artifact:///t/p/support-chats:v0', 'wandb-artifact:///t/p/sql-tasks:v3'];
    const targets = urls.map(sftTargetLoss);
    expect(targets[0]).not.toBe(targets[1]);
    for (const [i, url] of urls.entries()) {
      const losses = (await sftJob(emu, await newModel(), url)).map((s) => s.loss!);
      expect(losses[0]).toBeGreaterThan(targets[i]! + 0.3);
      expect(Math.abs(losses.at(-1)! - targets[i]!)).toBeLessThanOrEqual(0.03);
      expect(losses.at(-1)!).toBeLessThan(losses[0]!);
    }
  });
});

describe('a durable emulator restarted in the middle of a job', () => {
  /** The gradient steps and checkpoint metrics of one job on a fresh state directory, seeded. */
  async function run(restart: boolean) {
    const dir = stateDir();
    let e = await durable.start(dir, { seed: 31 });
    await call(e.origin, 'POST', '/_emulator/job-plans', { step_ms: 100 });
    const { body: model } = await call(e.origin, 'POST', '/training/v1/preview/models', MODEL);
    const { body: job } = await call(e.origin, 'POST', '/training/v1/preview/training-jobs', {
      model_id: model.id,
      trajectory_groups: groupsAveraging(0.94, 10),
    });
    const events = async () =>
      (await call(e.origin, 'GET', `/training/v1/preview/training-jobs/${job.id}/events?limit=100`)).body
        .data as Array<{ type: string; data: Step }>;
    if (restart) {
      await waitFor(
        async () => (await events()).some((ev) => ev.type === 'gradient_step'),
        undefined,
        'a step',
      );
      const before = await events();
      await durable.stop(e);
      e = await durable.start(dir, { seed: 31 });
      // The steps still to come were not reported before the restart.
      expect(before.some((ev) => ev.type === 'training_ended')).toBe(false);
    }
    await waitFor(
      async () => (await events()).some((ev) => ev.type === 'training_ended'),
      undefined,
      'job end',
    );
    const checkpoints = await call(e.origin, 'GET', `/training/v1/preview/models/${model.id}/checkpoints`);
    return {
      steps: (await events()).filter((ev) => ev.type === 'gradient_step').map((ev) => ev.data),
      checkpoints: checkpoints.body.data.map((c: { step: number; metrics: Step }) => [c.step, c.metrics]),
    };
  }

  it('reports the metrics it would have reported without the restart', async () => {
    const straight = await run(false);
    const restarted = await run(true);
    expect(straight.steps).toHaveLength(10);
    expect(Math.abs(straight.steps.at(-1)!.reward! - 0.94)).toBeLessThanOrEqual(0.05);
    expect(restarted).toEqual(straight);
  });
});
