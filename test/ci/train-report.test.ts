// aip train rl in a simulated GitHub Actions step (runner.ts), on the emulator, whose later checkpoints
// answer arithmetic right more often (test/commands/train.test.ts): outputs for later steps (the last
// job, the model, the checkpoint the run's jobs made, the last mean reward, the run directory) and a
// summary (a row per iteration, the mean reward over the iterations as a Mermaid chart), written when
// the run ends and when a job fails it (exit 5, with the command that resumes), nothing off a runner.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { mermaidNumber } from '../../src/ci/chart.js';
import { markdownText } from '../../src/ci/markdown.js';
import { dollars } from '../../src/output/dollars.js';
import { useEmulator } from '../helpers/emulator.js';
import { writeArithmeticTasks } from '../helpers/tasks.js';
import { type Runner, simulatedRunner, stepOutputs, stepSummary } from './runner.js';

const t = useEmulator({ runOptions: { sleepCap: 5 } });
const { emu, run } = t;

interface Iteration {
  iteration: number;
  checkpoint_step: number;
  rollouts: { trajectories: number; failed: number; mean_reward: number };
  job_id: string;
  job_state?: string;
  new_checkpoint_step?: number;
  usage: { requests: number; prompt_tokens: number; completion_tokens: number; cost: number | null };
}

let tasks: string;
let runDir: string;
let modelId: string;
let runner: Runner;
beforeEach(async () => {
  modelId = (
    await run('models create --name agent --base-model OpenPipe/Qwen3-14B-Instruct -q')
  ).stdout.trim();
  tasks = writeArithmeticTasks(join(t.dir, 'tasks.jsonl'));
  runDir = join(t.dir, 'run');
  runner = simulatedRunner();
});

const train = (steps: number) =>
  ['train', 'rl', '--model', 'agent', '--tasks', tasks, '--reward', 'exact', '-K', '4', '--seed', '7'].concat(
    ['--steps', String(steps), '--interval', '0.01', '--run-dir', runDir],
  );
const iterations = (): Iteration[] => JSON.parse(readFileSync(join(runDir, 'run.json'), 'utf8')).iterations;
const outputs = () => stepOutputs(runner);
const summary = () => stepSummary(runner);
const artifact = (step: number) => `wandb-artifact:///local/demo/agent:step${step}`;
const row = (i: Iteration) =>
  `| ${i.iteration} | ${i.checkpoint_step} | ${i.rollouts.mean_reward.toFixed(3)} | ${i.rollouts.trajectories} | ${i.rollouts.failed} | ${i.job_id} | ${i.job_state} | ${i.new_checkpoint_step === undefined ? '' : `step ${i.new_checkpoint_step}`} | ${i.usage.prompt_tokens + i.usage.completion_tokens} | ${i.usage.cost === null ? 'unknown' : dollars(i.usage.cost)} |`;

describe('train rl on GitHub Actions', () => {
  it('to its end: the last job, its checkpoint and mean reward; a row per iteration and a chart', async () => {
    await emu.control('POST', '/job-plans', { steps: 2, times: 3 });
    const r = await run(train(3), { env: runner.env });
    expect(r.code, r.stderr).toBe(0);
    const done = iterations();
    expect(done.map((i) => i.new_checkpoint_step)).toEqual([2, 4, 6]);
    expect(outputs()).toEqual({
      'job-id': done[2]!.job_id,
      'model-id': modelId,
      checkpoint: artifact(6),
      'mean-reward': String(done[2]!.rollouts.mean_reward),
      'run-dir': runDir,
    });

    const text = summary();
    expect(text).toMatch(/^### RL training: 3 of 3 iterations done\n/);
    expect(text).toContain(`| **Model** | local/demo/agent (${modelId}) |\n`);
    expect(text).toContain(`| **Run directory** | ${markdownText(runDir)} |\n`);
    expect(text).toContain(`| **Checkpoint** | ${artifact(6)} |\n`);
    expect(text).toContain(
      [
        '| iteration | step sampled | mean reward | trajectories | failed | job | state | checkpoint made | tokens | cost |',
        '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |',
        ...done.map(row),
        '',
      ].join('\n'),
    );
    const chart = /```mermaid\nxychart-beta\n([\s\S]*?)```\n/.exec(text)?.[1]?.split('\n');
    expect(chart?.[0]).toBe('  title "mean reward over the iterations"');
    expect(chart?.[1]).toBe('  x-axis "iteration" ["1", "2", "3"]');
    expect(chart?.[3]).toBe(`  line [${done.map((i) => mermaidNumber(i.rollouts.mean_reward)).join(', ')}]`);
    expect(text).not.toContain('#### Resume');
  });

  it('a job that fails the run (exit 5): its id, the checkpoint of the last job that made one, how to resume', async () => {
    await emu.control('POST', '/job-plans', { steps: 2, times: 1 });
    await emu.control('POST', '/job-plans', {
      steps: 2,
      fail_at_step: 1,
      error_message: '<b>CUDA</b> out of memory',
      times: 1,
    });
    const r = await run(train(3), { env: runner.env });
    expect(r.code).toBe(5);
    const [first, second] = iterations();
    expect([first!.job_state, second!.job_state]).toEqual(['succeeded', 'failed']);
    expect(outputs()).toEqual({
      'job-id': second!.job_id,
      'model-id': modelId,
      checkpoint: artifact(2),
      'mean-reward': String(second!.rollouts.mean_reward),
      'run-dir': runDir,
    });
    const text = summary();
    expect(text).toMatch(
      new RegExp(`^### RL training stopped at iteration 2 of 3\n\njob ${second!.job_id} failed at step 1: `),
    );
    expect(text).toContain('&lt;b&gt;CUDA&lt;/b&gt; out of memory');
    expect(text).not.toContain('<b>');
    expect(text).toContain(`${row(first!)}\n${row(second!)}\n`);
    expect(text).toContain(`#### Resume\n\n\`\`\`sh\naip train rl --resume ${runDir}\n\`\`\`\n`);
  });

  it('writes nothing with --ci none on a runner', async () => {
    await emu.control('POST', '/job-plans', { steps: 1 });
    expect((await run(['--ci', 'none', ...train(1)], { env: runner.env })).code).toBe(0);
    expect([readFileSync(runner.outputFile, 'utf8'), summary()]).toEqual(['', '']);
  });
});
