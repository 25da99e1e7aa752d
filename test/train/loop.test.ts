// The RL loop of `aip train rl` (src/train/loop.ts), imported directly, with fakes: a fake training
// client handed out by the Context (the latest checkpoint, the job create, the checkpoint a job made,
// logging), a fake sampler writing the iteration's groups file, and a fake wait (LoopDeps). The
// decisions the loop makes are what is tested: each step recorded in run.json as it happens, a resume
// skipping what is recorded done, a job created never created again, a failed job created again from
// the same groups with its id kept under failed_jobs, a create whose answer was lost stopping the run.
// Nothing waits for time: a stop is a SIGINT emitted on the Context's own signal emitter.

import { EventEmitter } from 'node:events';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RequestOptions } from '../../src/api/http.js';
import type { TrainingClient } from '../../src/api/training.js';
import type { Checkpoint, CreateRlJob, JobResponse } from '../../src/api/types.js';
import { Context } from '../../src/context.js';
import { ApiError, CliError, InterruptedError, JobFailedError } from '../../src/errors/errors.js';
import type { JobProgress } from '../../src/jobs/shape.js';
import type { ModelRef } from '../../src/models/resolve.js';
import type { Task } from '../../src/rollouts/tasks.js';
import { iterationSeed, type LoopDeps, type LoopSetup, trainLoop } from '../../src/train/loop.js';
import {
  createRunDir,
  type IterationRecord,
  openRunDir,
  RUN_FILE,
  type RunDir,
  type RunState,
} from '../../src/train/run-dir.js';
import { fakeIO } from '../helpers/io.js';
import { tempDir } from '../helpers/temp.js';

const MODEL: ModelRef = { id: 'model-1', entry: undefined, byName: false, label: 'model-1', ref: 'model-1' };
const TASKS: Task[] = ['a', 'b', 'c'].map((id) => ({ id, messages: [{ role: 'user', content: id }] }));
const SEED = 7;

/** One platform for a test, kept across the runs of a resume: its checkpoints and jobs. */
class FakePlatform {
  checkpoints: Checkpoint[] = [{ id: 'ckpt-0', step: 0, metrics: {} }];
  /** Every create sent, in order (the body, and run.json as it was on disk when it was sent). */
  creates: Array<{ body: CreateRlJob; onDisk: RunState }> = [];
  logs: Array<{ split: string; groups: unknown[] }> = [];
  private jobs = 0;
  /** How the next creates answer (a function of the create's number, 1-based), by default a job. */
  answerCreate: (n: number) => JobResponse | Error = (n) => ({ id: `job-${n}` });
  /** Run before a create is answered (a Ctrl-C while it is in flight). */
  duringCreate: (n: number) => void = () => undefined;

  constructor(readonly runDir: string) {}

  /** The steps a job trains: the model's checkpoints grow by two, as the emulator's jobs do. */
  train(): number {
    const step = this.latest + 2;
    this.checkpoints.push({ id: `ckpt-${step}`, step, metrics: {} });
    return step;
  }

  get latest(): number {
    return Math.max(...this.checkpoints.map((c) => c.step));
  }

  client(): TrainingClient {
    const fake = {
      listCheckpoints: async (id: string, query: { limit?: number } = {}) => {
        expect(id).toBe(MODEL.id);
        const data = [...this.checkpoints].sort((a, b) => b.step - a.step).slice(0, query.limit ?? 10);
        return { data, has_more: false };
      },
      logTrajectories: async (id: string, body: { split: string; trajectory_groups: unknown[] }) => {
        expect(id).toBe(MODEL.id);
        this.logs.push({ split: body.split, groups: body.trajectory_groups });
        return {};
      },
      send: async (request: RequestOptions) => {
        expect(request).toMatchObject({ method: 'POST', path: '/preview/training-jobs' });
        const n = ++this.jobs;
        this.creates.push({ body: request.body as CreateRlJob, onDisk: readState(this.runDir) });
        this.duringCreate(n);
        const answer = this.answerCreate(n);
        if (answer instanceof Error) throw answer;
        return answer;
      },
    };
    return fake as unknown as TrainingClient;
  }
}

const readState = (dir: string): RunState => JSON.parse(readFileSync(join(dir, RUN_FILE), 'utf8'));

/** The group the fake sampler writes for a task: its reward says which iteration sampled it. */
function group(task: Task, iteration: number) {
  return {
    trajectories: [
      {
        messages_and_choices: [
          ...task.messages,
          {
            finish_reason: 'stop',
            index: 0,
            message: { role: 'assistant', content: `answer ${iteration}` },
            logprobs: null,
          },
        ],
        reward: iteration,
      },
    ],
    metadata: { task_id: task.id },
  };
}

interface Calls {
  samples: Array<{ iteration: number; seed: number; model: string; onDisk: RunState }>;
  waits: Array<{ id: string; onDisk: RunState }>;
}

/**
 * The fakes of one run of the loop. `sample` and `wait` are what each call does beyond recording it:
 * by default the sampler writes every task's group and the job succeeds, training two steps.
 */
function fakes(
  platform: FakePlatform,
  ctx: Context,
  behaviour: {
    sample?: (iteration: IterationRecord) => 'done' | 'stop';
    wait?: (id: string) => 'succeed' | 'fail' | 'stop';
  } = {},
): { deps: LoopDeps; calls: Calls } {
  const calls: Calls = { samples: [], waits: [] };
  const deps: LoopDeps = {
    sampleIteration: async (_ctx, iteration, where, tasks, _sampling, signal) => {
      calls.samples.push({
        iteration: iteration.iteration,
        seed: iteration.seed,
        model: where.model,
        onDisk: readState(platform.runDir),
      });
      if ((behaviour.sample?.(iteration) ?? 'done') === 'stop') {
        ctx.deps.signals.emit('SIGINT');
        expect(signal.aborted).toBe(true);
        return false;
      }
      mkdirSync(dirname(where.file), { recursive: true });
      writeFileSync(
        where.file,
        tasks.map((task) => `${JSON.stringify(group(task, iteration.iteration))}\n`).join(''),
      );
      return true;
    },
    watchJob: async (_ctx, job) => {
      calls.waits.push({ id: job.id, onDisk: readState(platform.runDir) });
      const how = behaviour.wait?.(job.id) ?? 'succeed';
      if (how === 'stop') {
        ctx.deps.signals.emit('SIGINT');
        throw new InterruptedError();
      }
      if (how === 'fail') throw new JobFailedError(`job ${job.id} failed: out of memory`);
      const progress: JobProgress = {
        state: 'succeeded',
        step: 2,
        num_sequences: 2,
        error_message: null,
        latest_metrics: null,
      };
      platform.train();
      return progress;
    },
  };
  return { deps, calls };
}

function context(): { ctx: Context; stderr: () => string } {
  const { io, stderr } = fakeIO();
  const ctx = new Context({
    env: { AIP_CONFIG_DIR: tempDir(), AIP_KEYRING: 'off' },
    io,
    transport: async () => {
      throw new Error('the loop is given a fake client: nothing is sent');
    },
    sleep: async () => undefined,
    random: () => 0.5,
    signals: new EventEmitter(),
  });
  return { ctx, stderr: () => stderr.text };
}

function newRun(steps: number, overrides: Partial<RunState> = {}): { run: RunDir; platform: FakePlatform } {
  const dir = join(tempDir(), 'run');
  const run = createRunDir(dir, {
    version: 1,
    created_at: '2025-01-02T03:04:05.000Z',
    model: { id: MODEL.id, name: 'agent', base_url: 'http://127.0.0.1:1/training/v1' },
    tasks: { path: '/tasks.jsonl', sha256: 'ab'.repeat(32), count: TASKS.length },
    steps,
    seed: SEED,
    sampling: { group_size: 1, reward: 'exact', params: {} },
    experimental_config: {},
    log_split: null,
    iterations: [],
    ...overrides,
  });
  return { run, platform: new FakePlatform(dir) };
}

const SETUP: LoopSetup = {
  model: MODEL,
  tasks: TASKS,
  sampling: { params: {} },
  wait: {},
  resume: 'aip train rl --resume run',
};

/** One run of the loop (a first one or a resume), on a fresh Context: what it threw, if anything. */
async function runLoop(
  dir: string,
  platform: FakePlatform,
  behaviour: Parameters<typeof fakes>[2] = {},
  run: RunDir = openRunDir(dir),
): Promise<{ error: unknown; calls: Calls; stderr: string; state: RunState }> {
  const { ctx, stderr } = context();
  ctx.training = () => platform.client();
  const { deps, calls } = fakes(platform, ctx, behaviour);
  let error: unknown;
  try {
    await trainLoop(ctx, run, SETUP, deps);
  } catch (e) {
    error = e;
  }
  expect(ctx.deps.signals.listenerCount('SIGINT')).toBe(0); // the loop gives Ctrl-C back
  return { error, calls, stderr: stderr(), state: readState(dir) };
}

const iterationsOf = (calls: Calls) => calls.samples.map((s) => s.iteration);

describe('trainLoop: a run to its end', () => {
  it('records each step in run.json as it happens, and each iteration samples the checkpoint before it', async () => {
    const { run, platform } = newRun(3);
    const r = await runLoop(run.dir, platform, {}, run);
    expect(r.error).toBeUndefined();

    // Sampling: the iteration is in run.json (its seed, checkpoint, file), the one before it done.
    expect(r.calls.samples.map((s) => [s.iteration, s.seed, s.model])).toEqual([
      [1, iterationSeed(SEED, 1), 'wandb-artifact:///agent:step0'],
      [2, iterationSeed(SEED, 2), 'wandb-artifact:///agent:step2'],
      [3, iterationSeed(SEED, 3), 'wandb-artifact:///agent:step4'],
    ]);
    r.calls.samples.forEach(({ iteration: n, onDisk }) => {
      expect(onDisk.iterations).toHaveLength(n);
      expect(onDisk.iterations[n - 1]).toEqual({
        iteration: n,
        seed: iterationSeed(SEED, n),
        checkpoint_step: 2 * (n - 1),
        groups_file: `iteration-${n}/groups.jsonl`,
      });
      if (n > 1) expect(onDisk.iterations[n - 2]).toMatchObject({ job_state: 'succeeded' });
    });

    // The create: the rollouts' summary, and the mark that it is being sent, are on disk before it.
    expect(platform.creates).toHaveLength(3);
    platform.creates.forEach(({ body, onDisk }, i) => {
      const n = i + 1;
      expect(body.model_id).toBe(MODEL.id);
      expect(body.trajectory_groups).toEqual(TASKS.map((task) => group(task, n)));
      expect(body).not.toHaveProperty('experimental_config');
      const record = onDisk.iterations[n - 1]!;
      expect(record.rollouts).toEqual({ groups: 3, trajectories: 3, failed: 0, mean_reward: n });
      expect(record.create_sent_at).toEqual(expect.any(String));
      expect(record).not.toHaveProperty('job_id');
    });

    // The wait: the job's id is on disk before it.
    expect(r.calls.waits.map((w) => w.id)).toEqual(['job-1', 'job-2', 'job-3']);
    r.calls.waits.forEach(({ id, onDisk }, i) => {
      expect(onDisk.iterations[i]).toMatchObject({ job_id: id });
      expect(onDisk.iterations[i]).not.toHaveProperty('job_state');
    });

    // The end: every iteration succeeded, with the checkpoint its job made.
    expect(r.state.iterations.map((it) => [it.job_id, it.job_state, it.new_checkpoint_step])).toEqual([
      ['job-1', 'succeeded', 2],
      ['job-2', 'succeeded', 4],
      ['job-3', 'succeeded', 6],
    ]);
    expect(r.state.iterations.some((it) => it.failed_jobs)).toBe(false);
  });

  it("sends the run's experimental config with each create", async () => {
    const { run, platform } = newRun(1, { experimental_config: { learning_rate: 1e-5 } });
    const r = await runLoop(run.dir, platform, {}, run);
    expect(r.error).toBeUndefined();
    expect(platform.creates[0]!.body.experimental_config).toEqual({ learning_rate: 1e-5 });
  });

  it('a run whose iterations are all done does nothing on resume', async () => {
    const { run, platform } = newRun(2);
    expect((await runLoop(run.dir, platform, {}, run)).error).toBeUndefined();
    const again = await runLoop(run.dir, platform);
    expect(again.error).toBeUndefined();
    expect(again.calls).toEqual({ samples: [], waits: [] });
    expect(platform.creates).toHaveLength(2);
  });

  it('an iteration whose every trajectory failed ends the run: nothing to train on, nothing created', async () => {
    const { run, platform } = newRun(2);
    const { ctx } = context();
    ctx.training = () => platform.client();
    const { deps } = fakes(platform, ctx);
    deps.sampleIteration = async (_ctx, _iteration, where, tasks) => {
      mkdirSync(dirname(where.file), { recursive: true });
      const failed = tasks.map((t) =>
        JSON.stringify({ trajectories: [], exceptions: [{ type: 'X', message: t.id, traceback: '' }] }),
      );
      writeFileSync(where.file, `${failed.join('\n')}\n`);
      return true;
    };
    await expect(trainLoop(ctx, run, SETUP, deps)).rejects.toThrow(/every trajectory failed/);
    expect(platform.creates).toHaveLength(0);
    expect(readState(run.dir).iterations).toHaveLength(1);
  });
});

describe('trainLoop: resume', () => {
  it('skips what is recorded done: a stopped iteration samples again with its seed and checkpoint', async () => {
    const { run, platform } = newRun(3);
    // Ctrl-C while iteration 2 samples.
    const first = await runLoop(
      run.dir,
      platform,
      { sample: (it) => (it.iteration === 2 ? 'stop' : 'done') },
      run,
    );
    expect(first.error).toBeInstanceOf(InterruptedError);
    expect(first.stderr).toContain('Stopped at iteration 2 of 3');
    expect(first.stderr).toContain(SETUP.resume);
    expect(first.state.iterations).toHaveLength(2);
    expect(first.state.iterations[1]).not.toHaveProperty('rollouts');
    expect(platform.creates).toHaveLength(1);

    // Another job trains the model meanwhile: the resumed iteration still samples the step it began on.
    platform.train();
    const second = await runLoop(run.dir, platform);
    expect(second.error).toBeUndefined();
    expect(iterationsOf(second.calls)).toEqual([2, 3]);
    expect(second.calls.samples[0]).toMatchObject({
      seed: iterationSeed(SEED, 2),
      model: 'wandb-artifact:///agent:step2',
    });
    expect(second.calls.waits.map((w) => w.id)).toEqual(['job-2', 'job-3']);
    expect(platform.creates).toHaveLength(3);
    expect(second.state.iterations[0]).toEqual(first.state.iterations[0]);
    expect(second.state.iterations.map((it) => it.job_state)).toEqual([
      'succeeded',
      'succeeded',
      'succeeded',
    ]);
  });

  it('an iteration whose rollouts are recorded is not sampled again: its groups go to the create', async () => {
    const { run, platform } = newRun(1);
    // The answer to the create is refused (a 422): no job, and the mark taken back.
    platform.answerCreate = (n) =>
      n === 1 ? new ApiError('invalid groups', 422, undefined) : { id: `job-${n}` };
    const first = await runLoop(run.dir, platform, {}, run);
    expect(first.error).toBeInstanceOf(ApiError);
    expect(first.state.iterations[0]!.rollouts).toBeDefined();
    expect(first.state.iterations[0]).not.toHaveProperty('create_sent_at');
    expect(first.calls.waits).toEqual([]);

    const second = await runLoop(run.dir, platform);
    expect(second.error).toBeUndefined();
    expect(second.calls.samples).toEqual([]);
    expect(platform.creates).toHaveLength(2);
    expect(platform.creates[1]!.body.trajectory_groups).toEqual(platform.creates[0]!.body.trajectory_groups);
    expect(second.state.iterations[0]).toMatchObject({ job_id: 'job-2', job_state: 'succeeded' });
  });

  it('a job created is never created again: stopped while waiting, the resume waits for the same job', async () => {
    const { run, platform } = newRun(2);
    const first = await runLoop(
      run.dir,
      platform,
      { wait: (id) => (id === 'job-1' ? 'stop' : 'succeed') },
      run,
    );
    expect(first.error).toBeInstanceOf(InterruptedError);
    expect(first.state.iterations[0]).toMatchObject({ job_id: 'job-1' });
    expect(first.state.iterations[0]).not.toHaveProperty('job_state');

    const second = await runLoop(run.dir, platform);
    expect(second.error).toBeUndefined();
    expect(second.calls.samples.map((s) => s.iteration)).toEqual([2]);
    expect(second.calls.waits.map((w) => w.id)).toEqual(['job-1', 'job-2']);
    expect(platform.creates.map((c) => c.body.trajectory_groups)).toEqual([
      TASKS.map((t) => group(t, 1)),
      TASKS.map((t) => group(t, 2)),
    ]);
    expect(second.state.iterations.map((it) => [it.job_id, it.job_state])).toEqual([
      ['job-1', 'succeeded'],
      ['job-2', 'succeeded'],
    ]);
  });

  it('Ctrl-C while the create is in flight: its answer is recorded, the run stops, the resume waits for it', async () => {
    const { run, platform } = newRun(2);
    let signals: EventEmitter | undefined;
    platform.duringCreate = (n) => {
      if (n === 1) signals?.emit('SIGINT');
    };
    const { ctx, stderr } = context();
    signals = ctx.deps.signals as EventEmitter;
    ctx.training = () => platform.client();
    const { deps, calls } = fakes(platform, ctx);
    await expect(trainLoop(ctx, run, SETUP, deps)).rejects.toBeInstanceOf(InterruptedError);
    expect(stderr()).toContain('Stopped at iteration 1 of 2');
    expect(calls.waits).toEqual([]);
    expect(readState(run.dir).iterations[0]).toMatchObject({ job_id: 'job-1' });

    const second = await runLoop(run.dir, platform);
    expect(second.error).toBeUndefined();
    expect(second.calls.waits.map((w) => w.id)).toEqual(['job-1', 'job-2']);
    expect(platform.creates).toHaveLength(2);
  });

  it('a failed job is created again from the same groups, its id kept under failed_jobs', async () => {
    const { run, platform } = newRun(2);
    const failing = new Set(['job-1', 'job-2']);
    const wait = (id: string) => (failing.has(id) ? 'fail' : 'succeed');

    const first = await runLoop(run.dir, platform, { wait }, run);
    expect(first.error).toBeInstanceOf(JobFailedError);
    expect((first.error as CliError).hint).toContain(SETUP.resume);
    expect(first.state.iterations).toHaveLength(1);
    expect(first.state.iterations[0]).toMatchObject({
      job_id: 'job-1',
      job_state: 'failed',
      job_error: 'job job-1 failed: out of memory',
    });

    // The first resume: created again, and fails again.
    const second = await runLoop(run.dir, platform, { wait });
    expect(second.error).toBeInstanceOf(JobFailedError);
    expect(second.calls.samples).toEqual([]);
    expect(second.stderr).toContain('Iteration 1: job job-1 failed; creating it again from the same groups');
    // On disk when the second create was sent: the failed job kept, no job id, nothing of its end.
    const atCreate = platform.creates[1]!.onDisk.iterations[0]!;
    expect(atCreate.failed_jobs).toEqual([{ job_id: 'job-1', error: 'job job-1 failed: out of memory' }]);
    for (const key of ['job_id', 'job_state', 'job_error']) expect(atCreate).not.toHaveProperty(key);
    expect(atCreate.create_sent_at).toEqual(expect.any(String));

    // The second resume: created a third time, succeeds; the run goes on.
    const third = await runLoop(run.dir, platform, { wait });
    expect(third.error).toBeUndefined();
    expect(third.calls.samples.map((s) => s.iteration)).toEqual([2]);
    expect(platform.creates.map((c) => c.body.trajectory_groups)).toEqual([
      TASKS.map((t) => group(t, 1)),
      TASKS.map((t) => group(t, 1)),
      TASKS.map((t) => group(t, 1)),
      TASKS.map((t) => group(t, 2)),
    ]);
    const done = third.state.iterations[0]!;
    expect(done).toMatchObject({ job_id: 'job-3', job_state: 'succeeded', new_checkpoint_step: 2 });
    expect(done).not.toHaveProperty('job_error');
    expect(done.failed_jobs).toEqual([
      { job_id: 'job-1', error: 'job job-1 failed: out of memory' },
      { job_id: 'job-2', error: 'job job-2 failed: out of memory' },
    ]);
    expect(third.state.iterations[1]).toMatchObject({ job_id: 'job-4', job_state: 'succeeded' });
  });
});

describe('trainLoop: a create whose answer was lost', () => {
  const lost = () => {
    const error = new CliError('the connection was reset before the answer came');
    error.uncertain = true;
    return error;
  };

  it('stops the run with the mark kept; a resume sends nothing and says what to look at', async () => {
    const { run, platform } = newRun(3);
    platform.answerCreate = (n) => (n === 1 ? lost() : { id: `job-${n}` });
    const first = await runLoop(run.dir, platform, {}, run);
    expect(first.error).toBeInstanceOf(CliError);
    expect((first.error as CliError).uncertain).toBe(true);
    expect((first.error as CliError).hint).toMatch(/give iteration 1 the "job_id" of the job that ran/);
    expect(first.calls.waits).toEqual([]);
    expect(first.state.iterations).toHaveLength(1); // iteration 2 not begun
    expect(first.state.iterations[0]!.create_sent_at).toEqual(expect.any(String));
    expect(first.state.iterations[0]).not.toHaveProperty('job_id');

    for (let attempt = 0; attempt < 2; attempt++) {
      const again = await runLoop(run.dir, platform);
      expect(again.error).toBeInstanceOf(CliError);
      expect((again.error as CliError).message).toMatch(
        /iteration 1's job create was sent at .* and its answer never came: whether the job exists is unknown, and it is not sent again/,
      );
      expect(again.calls).toEqual({ samples: [], waits: [] });
      expect(platform.creates).toHaveLength(1);
      expect(again.state).toEqual(first.state);
    }
  });

  it('once the user gives the iteration the job that ran, the resume waits for it and goes on', async () => {
    const { run, platform } = newRun(2);
    platform.answerCreate = (n) => (n === 1 ? lost() : { id: `job-${n}` });
    await runLoop(run.dir, platform, {}, run);
    const state = readState(run.dir);
    state.iterations[0]!.job_id = 'job-found';
    writeFileSync(join(run.dir, RUN_FILE), JSON.stringify(state));

    const again = await runLoop(run.dir, platform);
    expect(again.error).toBeUndefined();
    expect(again.calls.waits.map((w) => w.id)).toEqual(['job-found', 'job-2']);
    expect(platform.creates).toHaveLength(2);
  });

  it('an answer without a job id is as lost: the run stops, and the resume does not create it', async () => {
    const { run, platform } = newRun(2);
    platform.answerCreate = () => ({}) as JobResponse;
    const first = await runLoop(run.dir, platform, {}, run);
    expect((first.error as CliError).message).toMatch(/answered iteration 1's create without a job id/);
    const again = await runLoop(run.dir, platform);
    expect((again.error as CliError).message).toMatch(/its answer never came/);
    expect(platform.creates).toHaveLength(1);
  });
});

describe('trainLoop: --log-split', () => {
  it('logs each iteration once, before its create; a log whose answer was lost is not sent again', async () => {
    const { run, platform } = newRun(2, { log_split: 'train' });
    const r = await runLoop(run.dir, platform, {}, run);
    expect(r.error).toBeUndefined();
    expect(platform.logs.map((l) => l.groups)).toEqual([
      TASKS.map((t) => group(t, 1)),
      TASKS.map((t) => group(t, 2)),
    ]);
    expect(platform.creates.map((c) => c.onDisk.iterations.at(-1)!.log)).toEqual([
      { split: 'train', state: 'logged' },
      { split: 'train', state: 'logged' },
    ]);

    // A run stopped with the log sent and no answer: the resume warns, and does not log it again.
    const stopped = newRun(1, { log_split: 'train' });
    await runLoop(stopped.run.dir, stopped.platform, { wait: () => 'stop' }, stopped.run);
    const after = readState(stopped.run.dir);
    expect(after.iterations[0]!.log).toEqual({ split: 'train', state: 'logged' });
    after.iterations[0]!.log = { split: 'train', state: 'sending' };
    delete after.iterations[0]!.job_id;
    delete after.iterations[0]!.create_sent_at;
    writeFileSync(join(stopped.run.dir, RUN_FILE), JSON.stringify(after));
    const resumed = await runLoop(stopped.run.dir, stopped.platform);
    expect(resumed.error).toBeUndefined();
    expect(stopped.platform.logs).toHaveLength(1);
    expect(resumed.stderr).toContain('may have been logged to split "train" already');
    expect(resumed.state.iterations[0]!.log).toEqual({ split: 'train', state: 'unknown' });
  });
});
