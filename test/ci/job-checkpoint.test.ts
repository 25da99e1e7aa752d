// The `checkpoint` output of a wait names a checkpoint that job made, or is empty; never one of another
// job of the model. The platform's checkpoints do not say which job made them (api-contract.md §2.5),
// so aip reasons from the job's own steps (a job of no step made none) and its last step's metrics,
// which the emulator records on the checkpoint; and where checkpoints do name their job (a platform
// that adds it, answered here by a canned page), by that. In a simulated runner (runner.ts).

import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { attributeCheckpoint } from '../../src/jobs/job-checkpoint.js';
import { words } from '../helpers/cli.js';
import { useEmulator } from '../helpers/emulator.js';
import { type Runner, simulatedRunner, stepOutputs, stepSummary } from './runner.js';

const t = useEmulator({ runOptions: { sleepCap: 5 } });
const { emu, run } = t;
const CHECKPOINTS = '/training/v1/preview/models/*/checkpoints';

let file: string;
let modelId: string;
let runner: Runner;
beforeEach(async () => {
  modelId = (
    await run('models create --name agent --base-model OpenPipe/Qwen3-14B-Instruct -q')
  ).stdout.trim();
  file = join(t.dir, 'groups.jsonl');
  writeFileSync(file, '{"trajectories": [{"reward": 1}, {"reward": 0}]}\n'.repeat(2));
  runner = simulatedRunner();
});

const outputs = () => stepOutputs(runner);
const summary = () => stepSummary(runner);
const artifact = (step: number) => `wandb-artifact:///local/demo/agent:step${step}`;

/** A job of `steps` steps (failing at `failAt`, if given), followed to its end off the runner: its id. */
async function trained(steps: number, failAt?: number): Promise<string> {
  await emu.control('POST', '/job-plans', {
    steps,
    ...(failAt ? { fail_at_step: failAt, error_message: 'CUDA out of memory' } : {}),
  });
  const r = await run(words`jobs create rl --model agent --file ${file} --wait --interval 0.01`);
  expect(r.code, r.stderr).toBe(failAt ? 5 : 0);
  return r.stdout.trim();
}

async function latestStep(): Promise<number> {
  const page = await emu.api('GET', `/preview/models/${modelId}/checkpoints?limit=1&order=desc`);
  return page.body.data[0].step;
}

describe('the checkpoint output of a wait', () => {
  it('a job that fails at its first step, on a model trained before: last-step 0 and checkpoint empty', async () => {
    await trained(2);
    expect(await latestStep()).toBe(2);
    await emu.control('POST', '/job-plans', {
      steps: 3,
      fail_at_step: 1,
      error_message: 'CUDA out of memory',
    });
    const r = await run(words`jobs create rl --model agent --file ${file} --wait --interval 0.01`, {
      env: runner.env,
    });
    expect(r.code).toBe(5);
    // Written empty, not left out: no value an earlier command of the step wrote stands for this job.
    expect(outputs()).toEqual({
      'job-id': r.stdout.trim(),
      'model-id': modelId,
      state: 'failed',
      'last-step': '0',
      checkpoint: '',
    });
    expect(readFileSync(runner.outputFile, 'utf8')).toMatch(/^checkpoint<<(ghadelimiter_[\w-]+)\n\n\1\n/m);
    expect(summary()).toContain('| **Checkpoint** | none: the job made no training step |');
    // The model's newest is still the earlier job's, which is not this job's to name.
    expect(await latestStep()).toBe(2);
  });

  it('a job that fails later: the last checkpoint it made, the model’s steps counted across its jobs', async () => {
    await trained(2);
    const id = await trained(4, 3);
    const r = await run(['jobs', 'wait', id], { env: runner.env });
    expect(r.code).toBe(5);
    // Its steps 1 and 2 are the model's 3 and 4.
    expect(outputs()).toMatchObject({ state: 'failed', 'last-step': '2', checkpoint: artifact(4) });
    expect(summary()).toContain(`| **Checkpoint** | ${artifact(4)} |`);
  });

  it('jobs wait on a job that ended before another job of the model trained: its own, not the newest', async () => {
    const first = await trained(2);
    await trained(3);
    expect(await latestStep()).toBe(5);
    const r = await run(['jobs', 'wait', first], { env: runner.env });
    expect(r.code).toBe(0);
    expect(outputs()).toMatchObject({ 'job-id': first, 'last-step': '2', checkpoint: artifact(2) });
  });

  it('checkpoints that name their job: the newest of this job’s, or none', async () => {
    const id = await trained(2);
    const page = (data: unknown[]) => ({ object: 'list', data, has_more: false, first_id: '', last_id: '' });
    const checkpoint = (step: number, job: string) => ({
      id: `00000000-0000-4000-8000-00000000000${step}`,
      step,
      metrics: {},
      training_job_id: job,
    });
    await emu.fault({
      method: 'GET',
      path: CHECKPOINTS,
      status: 200,
      body: page([checkpoint(9, 'another-job'), checkpoint(7, id), checkpoint(6, id)]),
    });
    expect((await run(['jobs', 'wait', id], { env: runner.env })).code).toBe(0);
    expect(outputs().checkpoint).toBe(artifact(7));

    writeFileSync(runner.outputFile, '');
    await emu.fault({
      method: 'GET',
      path: CHECKPOINTS,
      status: 200,
      body: page([checkpoint(9, 'another-job')]),
    });
    expect((await run(['jobs', 'wait', id], { env: runner.env })).code).toBe(0);
    expect(outputs()).toMatchObject({ 'last-step': '2', checkpoint: '' });
  });

  it('the checkpoints cannot be read: empty, a warning, and the wait’s exit code stands', async () => {
    const id = await trained(2);
    await emu.fault({ method: 'GET', path: CHECKPOINTS, status: 404, body: { detail: 'Not Found' } });
    const r = await run(['jobs', 'wait', id], { env: runner.env });
    expect(r.code).toBe(0);
    expect(outputs().checkpoint).toBe('');
    expect(r.stderr).toContain('warning: the step summary has no checkpoint: unknown: ');
  });
});

describe('attributeCheckpoint, on a platform whose checkpoints keep no metrics', () => {
  const at = (...steps: number[]) => steps.map((step) => ({ id: `c${step}`, step, metrics: {} }));
  const job = (step: number) => ({ step, latest_metrics: step ? { reward: 0.5, loss: 0.2 } : null });

  it('the newest, as the platform’s SDK takes it, when it can be the job’s last', () => {
    expect(attributeCheckpoint(at(0, 1, 2, 3), 'j', job(3))).toEqual({ step: 3 });
    // Fewer trained checkpoints than the job made steps: some were deleted, and the newest may not be its.
    expect(attributeCheckpoint(at(0, 1), 'j', job(3)).step).toBeUndefined();
    expect(attributeCheckpoint(at(0), 'j', job(1)).step).toBeUndefined();
    expect(attributeCheckpoint(at(0, 1, 2), 'j', job(0))).toEqual({
      step: undefined,
      why: 'none: the job made no training step',
    });
  });

  it('with metrics: the newest whose metrics are the job’s last step’s, else none', () => {
    const withMetrics = [
      { id: 'a', step: 5, metrics: { reward: 0.9, loss: 0.1 } },
      { id: 'b', step: 4, metrics: { reward: 0.5, loss: 0.2 } },
      { id: 'c', step: 3, metrics: { reward: 0.4, loss: 0.3 } },
    ];
    expect(attributeCheckpoint(withMetrics, 'j', job(2))).toEqual({ step: 4 });
    expect(attributeCheckpoint(withMetrics.slice(0, 1), 'j', job(2)).step).toBeUndefined();
  });
});
