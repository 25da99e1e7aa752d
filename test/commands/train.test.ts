// aip train rl on the emulator, whose checkpoints answer arithmetic right more often the later their
// step: a run to its end (each job created once, the mean reward rising, the run directory, the table
// and chart), a run stopped by SIGINT in its second iteration and resumed (nothing created twice, the
// finished iteration's groups untouched), a create whose answer was lost refused on --resume, a failed
// job (exit 5) created again on --resume, --log-split logging each iteration once, and bad input
// refused before any request.

import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { dollars } from '../../src/output/dollars.js';
import { useEmulator } from '../helpers/emulator.js';
import { patience } from '../helpers/patience.js';
import { aipEnv, BIN, collect } from '../helpers/spawn.js';
import { writeArithmeticTasks } from '../helpers/tasks.js';

const t = useEmulator();
const { emu, run } = t;
const CREATE = '/training/v1/preview/training-jobs';
const CHAT = '/training/v1/chat/completions';
/** Polls at the emulator's pace rather than not at all. */
const FAST = { sleepCap: 5 };

interface Iteration {
  iteration: number;
  checkpoint_step: number;
  groups_file: string;
  rollouts?: { groups: number; trajectories: number; failed: number; mean_reward: number };
  create_sent_at?: string;
  job_id?: string;
  job_state?: string;
  new_checkpoint_step?: number;
  log?: { split: string; state: string };
  failed_jobs?: Array<{ job_id: string }>;
  usage?: { requests: number; prompt_tokens: number; completion_tokens: number; cost: number | null };
}
interface RunJson {
  model: { id: string; name: string };
  steps: number;
  seed: number;
  iterations: Iteration[];
}

let tasks: string;
let runDir: string;
let modelId: string;

beforeEach(async () => {
  modelId = (
    await run('models create --name agent --base-model OpenPipe/Qwen3-14B-Instruct -q')
  ).stdout.trim();
  tasks = writeArithmeticTasks(join(t.dir, 'tasks.jsonl'));
  runDir = join(t.dir, 'run');
});

const flags = (steps: number) => [
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
  '--steps',
  String(steps),
  '--interval',
  '0.01',
];
/** Each job makes two checkpoints: iterations sample steps 0, 2, 4 (right 20%, 60%, 95% of the time). */
const twoStepJobs = () => emu.control('POST', '/job-plans', { steps: 2, times: 20 });
const runJson = (dir = runDir): RunJson => JSON.parse(readFileSync(join(dir, 'run.json'), 'utf8'));
const lines = (file: string) => readFileSync(file, 'utf8').split('\n').filter(Boolean);
const creates = async () => (await emu.requests({ method: 'POST', path: CREATE })).length;

describe('aip train rl', () => {
  it('runs S iterations to the end: each job created once, the reward rising, a table and a chart', async () => {
    await twoStepJobs();
    const r = await run([...flags(3), '--run-dir', runDir], FAST);
    expect([r.code, r.stderr]).toMatchObject([
      0,
      expect.stringContaining('Iteration 3 of 3: checkpoint step 4'),
    ]);

    // Three creates, one per iteration, each with its own iteration's groups.
    const sent = await emu.requests({ method: 'POST', path: CREATE });
    expect(sent.map((s) => s.status)).toEqual([200, 200, 200]);
    for (const s of sent) {
      const body = s.body as { model_id: string; trajectory_groups: unknown[] };
      expect(body.model_id).toBe(modelId);
      expect(body.trajectory_groups).toHaveLength(8);
    }

    const state = runJson();
    expect(state).toMatchObject({ model: { id: modelId, name: 'local/demo/agent' }, steps: 3, seed: 7 });
    expect(state.iterations.map((i) => [i.checkpoint_step, i.job_state, i.new_checkpoint_step])).toEqual([
      [0, 'succeeded', 2],
      [2, 'succeeded', 4],
      [4, 'succeeded', 6],
    ]);
    const rewards = state.iterations.map((i) => i.rollouts!.mean_reward);
    expect(rewards[0]).toBeLessThan(rewards[1]!);
    expect(rewards[1]).toBeLessThan(rewards[2]!);
    for (const iteration of state.iterations) {
      expect(iteration.rollouts).toMatchObject({ groups: 8, trajectories: 32, failed: 0 });
      const groups = lines(join(runDir, iteration.groups_file)).map((l) => JSON.parse(l));
      expect(groups).toHaveLength(8);
      // Sampled from the checkpoint recorded, with the iteration's own seed.
      for (const g of groups)
        expect(g.metadata.rollout_model).toBe(
          `wandb-artifact:///local/demo/agent:step${iteration.checkpoint_step}`,
        );
    }
    expect(new Set(state.iterations.map((i) => i.job_id)).size).toBe(3);

    // Piped: a row per iteration, tab-separated, and no chart.
    expect(r.stdout.split('\n').filter(Boolean)).toEqual(
      state.iterations.map((i) =>
        [
          i.iteration,
          i.checkpoint_step,
          i.rollouts!.mean_reward.toFixed(3),
          32,
          0,
          i.job_id,
          'succeeded',
          i.usage!.prompt_tokens + i.usage!.completion_tokens,
          i.usage!.cost === null ? 'unknown' : dollars(i.usage!.cost),
        ].join('\t'),
      ),
    );
    // Resuming a finished run sends nothing and prints the summary: on a terminal, with the chart.
    await emu.control('DELETE', '/requests');
    const tty = await run(['train', 'rl', '--resume', runDir, '--no-color'], { stdoutTTY: true });
    expect(tty.code).toBe(0);
    expect(tty.stdout).toMatch(
      /ITERATION\s+STEP SAMPLED\s+MEAN REWARD\s+TRAJECTORIES\s+FAILED\s+JOB\s+STATE/,
    );
    expect(tty.stdout).toContain('mean reward over 3 iterations');
    expect(tty.stdout).toMatch(/[\u2801-\u28ff]/);
    const json = await run(['train', 'rl', '--resume', runDir, '--json']);
    expect(JSON.parse(json.stdout)).toMatchObject({ run_dir: runDir, iterations: state.iterations });
    expect(await emu.requests()).toEqual([]);
  });

  it('stops on SIGINT in the middle and --resume finishes it: no job created twice, finished groups untouched', async () => {
    await twoStepJobs();
    // Slow sampling, so that the signal comes while iteration 2 samples.
    await emu.fault({ path: CHAT, delay_ms: 40, times: 100_000 });
    const child = spawn(process.execPath, [BIN, ...flags(3), '--run-dir', runDir], { env: aipEnv(t.env) });
    const exited = collect(child, patience(120_000));
    const file = join(runDir, 'run.json');
    while (!(existsSync(file) && runJson().iterations.length >= 2)) {
      if (child.exitCode !== null) break;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    child.kill('SIGINT');
    const stopped = await exited;
    expect([stopped.code, stopped.signal, stopped.stderr]).toEqual([130, null, expect.any(String)]);
    expect(stopped.stderr).toContain(`Resume with: aip train rl --resume ${runDir}`);
    const before = runJson();
    expect(before.iterations).toHaveLength(2);
    expect(before.iterations[1]!.job_id).toBeUndefined();
    const firstGroups = readFileSync(join(runDir, 'iteration-1', 'groups.jsonl'), 'utf8');
    expect(await creates()).toBe(1);

    await emu.control('DELETE', '/faults');
    const resumed = await run(['train', 'rl', '--resume', runDir], FAST);
    expect([resumed.code, resumed.stderr]).toMatchObject([
      0,
      expect.stringContaining('1 of 3 iterations done'),
    ]);
    expect(await creates()).toBe(3);
    const after = runJson();
    expect(after.iterations.map((i) => i.job_state)).toEqual(['succeeded', 'succeeded', 'succeeded']);
    expect(after.iterations[0]).toEqual(before.iterations[0]);
    expect(readFileSync(join(runDir, 'iteration-1', 'groups.jsonl'), 'utf8')).toBe(firstGroups);
    // Iteration 2 carried on in its file: each task's group once.
    const ids = lines(join(runDir, 'iteration-2', 'groups.jsonl')).map((l) => JSON.parse(l).metadata.task_id);
    expect(ids.sort()).toEqual(Array.from({ length: 8 }, (_, i) => `sum-${i}`));
  });

  it('refuses to resume a create whose answer never came, naming what to check', async () => {
    await twoStepJobs();
    expect((await run([...flags(1), '--run-dir', runDir], FAST)).code).toBe(0);
    // As a run killed while its create was in flight leaves run.json: sent, no job id.
    const state = runJson();
    const { job_id: _, job_state: __, new_checkpoint_step: ___, ...inFlight } = state.iterations[0]!;
    writeFileSync(join(runDir, 'run.json'), JSON.stringify({ ...state, iterations: [inFlight] }));
    const r = await run(['train', 'rl', '--resume', runDir], FAST);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("iteration 1's job create was sent at");
    expect(r.stderr).toContain('it is not sent again');
    expect(r.stderr).toContain(`aip checkpoints list ${modelId}`);
    expect(await creates()).toBe(1);
  });

  it('exits 5 when a job fails; --resume creates it again from the same groups', async () => {
    await emu.control('POST', '/job-plans', { steps: 2, fail_at_step: 1, error_message: 'out of memory' });
    await twoStepJobs();
    const failed = await run([...flags(1), '--run-dir', runDir], FAST);
    expect(failed.code).toBe(5);
    expect(failed.stderr).toContain(`aip train rl --resume ${runDir} creates the job again`);
    const firstJob = runJson().iterations[0]!.job_id;
    expect(runJson().iterations[0]!.job_state).toBe('failed');

    const resumed = await run(['train', 'rl', '--resume', runDir], FAST);
    expect(resumed.code).toBe(0);
    const [iteration] = runJson().iterations;
    expect(iteration).toMatchObject({ job_state: 'succeeded', failed_jobs: [{ job_id: firstJob }] });
    expect(iteration!.job_id).not.toBe(firstJob);
    const sent = await emu.requests({ method: 'POST', path: CREATE });
    expect(sent).toHaveLength(2);
    expect(sent[1]!.body).toEqual(sent[0]!.body);
  });

  it('--log-split: a log the server refused is logged on --resume; a log that may have been taken is not sent again', async () => {
    await twoStepJobs();
    const path = `/training/v1/preview/models/${modelId}/log`;
    await emu.fault({ method: 'POST', path, status: 422, times: 1 });
    const refused = await run([...flags(1), '--run-dir', runDir, '--log-split', 'train'], FAST);
    expect(refused.code).toBe(2);
    expect(runJson().iterations[0]!.log).toBeUndefined();
    expect((await run(['train', 'rl', '--resume', runDir], FAST)).code).toBe(0);
    expect(runJson().iterations[0]!.log).toEqual({ split: 'train', state: 'logged' });
    const logs = await emu.requests({ method: 'POST', path });
    expect(logs.map((l) => l.status)).toEqual([422, 200]);
  });

  it('--log-split logs each iteration once, also across a resume', async () => {
    await twoStepJobs();
    const r = await run([...flags(2), '--run-dir', runDir, '--log-split', 'train'], FAST);
    expect(r.code).toBe(0);
    await run(['train', 'rl', '--resume', runDir], FAST);
    const logs = await emu.requests({ method: 'POST', path: `/training/v1/preview/models/${modelId}/log` });
    expect(logs).toHaveLength(2);
    for (const log of logs) {
      const body = log.body as { split: string; trajectory_groups: unknown[] };
      expect(body.split).toBe('train');
      expect(body.trajectory_groups).toHaveLength(8);
    }
    expect(runJson().iterations.map((i) => i.log)).toEqual([
      { split: 'train', state: 'logged' },
      { split: 'train', state: 'logged' },
    ]);
  });

  it('refuses bad input before any request', async () => {
    await emu.control('DELETE', '/requests');
    const noReward = await run([
      ...flags(1).filter((w) => w !== '--reward' && w !== 'exact'),
      '--run-dir',
      runDir,
    ]);
    expect(noReward.code).toBe(2);
    expect(noReward.stderr).toMatch(
      /a reward is needed: --reward exact\|contains\|regex\|json-match, or --reward-cmd/,
    );
    const missingTasks = await run([
      ...flags(1).map((w) => (w === tasks ? join(t.dir, 'nope.jsonl') : w)),
      '--run-dir',
      runDir,
    ]);
    expect(missingTasks.code).toBe(2);
    expect(missingTasks.stderr).toContain('nope.jsonl');
    const noSteps = await run([
      'train',
      'rl',
      '--model',
      'agent',
      '--tasks',
      tasks,
      '--reward',
      'exact',
      '--run-dir',
      runDir,
    ]);
    expect([noSteps.code, noSteps.stderr]).toEqual([
      2,
      'error: --steps is needed for a new run (or --resume DIR to carry one on)\n',
    ]);
    const notHere = await run(['train', 'rl', '--resume', join(t.dir, 'no-run')]);
    expect(notHere.code).toBe(2);
    expect(notHere.stderr).toContain('--resume takes the directory of a train rl run');
    const badConfig = await run([...flags(1), '--config', '{"learning_rat": 1}', '--run-dir', runDir]);
    expect(badConfig.code).toBe(2);
    expect(await emu.requests()).toEqual([]);
    expect(existsSync(runDir)).toBe(false);
  });
});
