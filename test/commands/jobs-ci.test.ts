// jobs wait and jobs create --wait on a simulated GitHub Actions runner: when the wait ends (succeeded,
// failed, stalled, timed out) the step outputs (read back by the runner's rules) and the step summary
// (its table, final metrics, Mermaid charts and the command that reproduces the step).

import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { type Runner, simulatedRunner, stepOutputs, stepSummary } from '../ci/runner.js';
import { words } from '../helpers/cli.js';
import { useEmulator } from '../helpers/emulator.js';

const t = useEmulator({ runOptions: { sleepCap: 5 } });
const { emu, run } = t;
let file: string;
let modelId: string;
let runner: Runner;
beforeEach(async () => {
  modelId = (
    await run('models create --name agent --base-model OpenPipe/Qwen3-14B-Instruct -q')
  ).stdout.trim();
  file = join(t.dir, 'groups.jsonl');
  writeFileSync(file, '{"trajectories": [{"reward": 1}, {"reward": 0}]}\n'.repeat(4));
  runner = simulatedRunner();
});

const outputs = () => stepOutputs(runner);
const summary = () => stepSummary(runner);

/** The Mermaid blocks of the summary: each a well-formed xychart of one line of `n` values. */
function charts(markdown: string): Array<{ title: string; values: number[] }> {
  return [...markdown.matchAll(/```mermaid\n([\s\S]*?)```\n/g)].map(([, body]) => {
    const lines = body!.trimEnd().split('\n');
    expect(lines[0]).toBe('xychart-beta');
    expect(lines[1]).toMatch(/^ {2}title "[^"\n]*"$/);
    expect(lines[2]).toMatch(/^ {2}x-axis "step" \["[\d.]+"(, "[\d.]+")*\]$/);
    expect(lines[3]).toMatch(/^ {2}y-axis "\w+" -?[\d.]+ --> -?[\d.]+$/);
    expect(lines[4]).toMatch(/^ {2}line \[-?[\d.]+(, -?[\d.]+)*\]$/);
    expect(lines).toHaveLength(5);
    return {
      title: /"(.*)"/.exec(lines[1]!)![1]!,
      values: lines[4]!
        .replace(/^ {2}line \[|\]$/g, '')
        .split(', ')
        .map(Number),
    };
  });
}

async function heldStill(): Promise<string> {
  await emu.control('POST', '/job-plans', { steps: 3, step_ms: 3_600_000, times: 1 });
  try {
    return (await run(words`jobs create rl --model agent --file ${file} -q`)).stdout.trim();
  } finally {
    await emu.control('POST', '/job-plans', { step_ms: 2 });
  }
}

describe('jobs wait on GitHub Actions', () => {
  it('succeeded: outputs for the next step, and a summary with metrics, charts and the command', async () => {
    const r = await run(words`jobs create rl --model agent --file ${file} --wait --interval 0.01`, {
      env: runner.env,
    });
    expect(r.code, r.stderr).toBe(0);
    const id = r.stdout.trim();
    expect(outputs()).toEqual({
      'job-id': id,
      'model-id': modelId,
      state: 'succeeded',
      'last-step': '4',
      // The model's latest checkpoint: step 0 at creation, then one per step.
      checkpoint: 'wandb-artifact:///local/demo/agent:step4',
    });
    const text = summary();
    expect(text).toMatch(/^### Training job succeeded\n/);
    expect(text).toContain(`| **Job** | ${id} (rl) |`);
    expect(text).toContain(`| **Model** | local/demo/agent (${modelId}) |`);
    expect(text).toContain('| **State** | succeeded after 4 steps |');
    expect(text).toMatch(/\| \*\*Duration\*\* \| [\d.]+s \|/);
    expect(text).toContain('| **Steps** | 4 of 4 |');
    expect(text).toContain('| **Checkpoint** | wandb-artifact:///local/demo/agent:step4 |');
    expect(text).toMatch(
      /#### Final metrics\n\n\| metric \| value \|\n\| --- \| --- \|\n(\| \w+ \| [-\d.e+]+ \|\n)+/,
    );
    expect(text).toMatch(/\| reward \| [\d.]+ \|/);
    const drawn = charts(text);
    expect(drawn.map((c) => [c.title, c.values.length])).toEqual([
      ['reward over the steps', 4],
      ['loss over the steps', 4],
    ]);
    const events = (await emu.api('GET', `/preview/training-jobs/${id}/events?limit=100`)).body.data;
    const rewards = events
      .filter((e: { type: string }) => e.type === 'gradient_step')
      .map((e: { data: { reward: number } }) => e.data.reward);
    expect(drawn[0]!.values).toEqual(rewards);
    expect(text).toContain(
      `#### Reproduce\n\n\`\`\`sh\naip jobs create rl --model agent --file ${file} --wait --interval 0.01\n\`\`\`\n`,
    );
  });

  it('stalled: state stalled, the steps so far, and the stall in the summary', async () => {
    const id = await heldStill();
    const r = await run(['jobs', 'wait', id, '--stall', '0.2', '--interval', '0.05'], { env: runner.env });
    expect(r.code).toBe(8);
    expect(outputs()).toEqual({
      'job-id': id,
      'model-id': modelId,
      state: 'stalled',
      'last-step': '0',
      // No step, so no checkpoint of this job's: the model's step 0 is not one (job-checkpoint.ts).
      checkpoint: '',
    });
    const text = summary();
    expect(text).toMatch(/^### Training job stalled\n/);
    expect(text).toContain(
      `| **State** | no new event for 0.2s (--stall): the job is still queued, no event yet; it keeps running. Resume with: aip jobs wait ${id} --stall 0.2 |`,
    );
    expect(text).toContain('| **Steps** | 0 of ? |');
    expect(text).not.toContain('#### Final metrics');
    expect(charts(text)).toEqual([]);
    expect(text).toContain(`aip jobs wait ${id} --stall 0.2 --interval 0.05\n`);
  });

  it('failed and timed out: their state, and the exit code of the wait', async () => {
    await emu.control('POST', '/job-plans', {
      steps: 4,
      fail_at_step: 3,
      error_message: 'CUDA out of memory',
    });
    const failing = (await run(words`jobs create rl --model agent --file ${file} -q`)).stdout.trim();
    const failed = await run(['jobs', 'wait', failing, '--interval', '0.01'], { env: runner.env });
    expect(failed.code).toBe(5);
    expect(outputs()).toMatchObject({ 'job-id': failing, state: 'failed', 'last-step': '2' });
    expect(summary()).toContain('| **State** | failed at step 3: CUDA out of memory |');

    writeFileSync(runner.outputFile, '');
    writeFileSync(runner.summaryFile, '');
    const id = await heldStill();
    const timedOut = await run(['--timeout', '0.1', 'jobs', 'wait', id], { env: runner.env });
    expect(timedOut.code).toBe(7);
    expect(outputs()).toMatchObject({ 'job-id': id, state: 'timed-out', 'last-step': '0' });
    expect(summary()).toMatch(/^### Training job still running at the --timeout\n/);
  });

  it('jobs create without --wait: the job and model ids for a later step, no summary', async () => {
    const r = await run(words`jobs create rl --model agent --file ${file} -q`, { env: runner.env });
    expect(r.code).toBe(0);
    expect(outputs()).toEqual({ 'job-id': r.stdout.trim(), 'model-id': modelId });
    expect(summary()).toBe('');
  });

  it("shows the server's text as text, and writes nothing off GitHub Actions", async () => {
    await emu.control('POST', '/job-plans', {
      steps: 2,
      fail_at_step: 1,
      error_message: '<img src=x> **bold** | pipe',
    });
    const id = (await run(words`jobs create rl --model agent --file ${file} -q`)).stdout.trim();
    const { GITHUB_ACTIONS: _on, ...off } = runner.env;
    expect((await run(['jobs', 'wait', id], { env: { ...off, GITHUB_ACTIONS: 'false' } })).code).toBe(5);
    expect([readFileSync(runner.outputFile, 'utf8'), summary()]).toEqual(['', '']);
    expect((await run(['jobs', 'wait', id], { env: runner.env })).code).toBe(5);
    expect(summary()).toContain(
      '| **State** | failed at step 1: &lt;img src=x&gt; \\*\\*bold\\*\\* \\| pipe |',
    );
  });
});
