// aip jobs list: the state column (derived from events, kept once a job has finished, so that listing
// finished jobs sends no request), --model, --state, --limit, jobs that are gone, and jobs whose state
// cannot be read; jobs.json stays readable by and from older versions.

import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { words } from '../helpers/cli.js';
import { useEmulator } from '../helpers/emulator.js';
import { jobsEnded } from '../helpers/jobs.js';

const t = useEmulator({ runOptions: { sleepCap: 5 } });
const { emu, env, run } = t;
let file: string;
let modelId: string;
beforeEach(async () => {
  modelId = (
    await run('models create --name agent --base-model OpenPipe/Qwen3-14B-Instruct -q')
  ).stdout.trim();
  file = join(t.dir, 'groups.jsonl');
  writeFileSync(file, '{"trajectories": [{"reward": 1}, {"reward": 0}]}\n'.repeat(2));
});

const EVENTS = /^\/training\/v1\/preview\/training-jobs\/[^/]+\/events$/;

async function create(model = 'agent'): Promise<string> {
  const r = await run(words`jobs create rl --model ${model} --file ${file} -q`);
  expect(r.code, r.stderr).toBe(0);
  return r.stdout.trim();
}

/** A job the emulator holds still: queued for an hour. */
async function heldStill(model = 'agent'): Promise<string> {
  await emu.control('POST', '/job-plans', { steps: 3, step_ms: 3_600_000, times: 1 });
  try {
    return await create(model);
  } finally {
    await emu.control('POST', '/job-plans', { step_ms: 2 });
  }
}

async function listed(argv = 'jobs list --json'): Promise<Array<Record<string, unknown>>> {
  const r = await run(argv);
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout);
}

/** The job ids whose events were asked for since the last clear. */
async function asked(): Promise<string[]> {
  return (await emu.requests({ method: 'GET' }))
    .filter((q) => EVENTS.test(q.path))
    .map((q) => q.path.split('/')[5]!);
}

const jobsFile = () => join(env.AIP_CONFIG_DIR!, 'jobs.json');
const record = () => JSON.parse(readFileSync(jobsFile(), 'utf8')) as { jobs: Array<Record<string, unknown>> };

describe('aip jobs list: the state column', () => {
  it('derives each state from the events, and keeps it once the job has finished', async () => {
    const done = await create();
    expect((await run(['jobs', 'wait', done, '--interval', '0.01'])).code).toBe(0);
    await emu.control('POST', '/job-plans', {
      steps: 2,
      fail_at_step: 1,
      error_message: 'CUDA out of memory',
    });
    const failed = await create();
    const queued = await heldStill();
    await jobsEnded(emu, [failed]);
    await emu.control('DELETE', '/requests');

    const jobs = await listed();
    expect(jobs.map((j) => [j.id, j.state])).toEqual([
      [queued, 'queued'],
      [failed, 'failed'],
      [done, 'succeeded'],
    ]);
    expect(jobs[1]).toMatchObject({ step: 0, num_sequences: 2, error_message: 'CUDA out of memory' });
    // The finished job (kept by jobs wait) was not asked about; the others were.
    expect((await asked()).sort()).toEqual([failed, queued].sort());
    expect(record().jobs.map((j) => (j.final as { state?: string } | undefined)?.state)).toEqual([
      'succeeded',
      'failed',
      undefined,
    ]);

    await emu.control('DELETE', '/requests');
    const piped = await run('jobs list');
    expect(piped.stdout.split('\n').map((l) => l.split('\t').slice(0, 2))).toEqual([
      [queued, 'queued'],
      [failed, 'failed'],
      [done, 'succeeded'],
      [''],
    ]);
    // Only the unfinished job is asked about again.
    expect(await asked()).toEqual([queued]);

    const tty = await run('jobs list', { stdoutTTY: true, env: { NO_COLOR: '1' } });
    expect(tty.stdout.split('\n')[0]).toMatch(/^ID +STATE +KIND +MODEL +CREATED$/);
    expect(tty.stdout).toMatch(new RegExp(`${failed} +failed +rl +local/demo/agent +just now`));
  });

  it('lists 100 finished jobs without a single request, once their end is kept', async () => {
    // Jobs made straight through the API, remembered as an older aip did (no kept state).
    const entries = [];
    for (let i = 0; i < 100; i++) {
      const { body } = await emu.api('POST', '/preview/training-jobs', {
        model_id: modelId,
        trajectory_groups: [{ trajectories: [{ reward: 1 }] }],
      });
      entries.push({
        id: body.id,
        kind: 'rl',
        model_id: modelId,
        model: 'local/demo/agent',
        base_url: emu.urls.base,
        created_at: body.created_at,
      });
    }
    writeFileSync(jobsFile(), JSON.stringify({ jobs: entries }));
    await jobsEnded(
      emu,
      entries.map((e) => e.id),
    );
    await emu.control('DELETE', '/requests');

    const first = await listed();
    expect(first).toHaveLength(100);
    expect(new Set(first.map((j) => j.state))).toEqual(new Set(['succeeded']));
    expect(new Set(await asked())).toEqual(new Set(entries.map((e) => e.id)));
    // Kept beside what was there: every old field as it was.
    for (const [i, job] of record().jobs.entries())
      expect(job).toEqual({ ...entries[i], final: expect.any(Object) });

    await emu.control('DELETE', '/requests');
    const again = await run('jobs list --json');
    expect(JSON.parse(again.stdout)).toEqual(first);
    expect(await emu.requests()).toEqual([]);
  });

  it('asks again about a kept state that does not hold together (a file edited by hand)', async () => {
    const id = await create();
    expect((await run(['jobs', 'wait', id, '--interval', '0.01'])).code).toBe(0);
    const data = record();
    data.jobs[0]!.final = { state: 'succeeded', step: 'three' };
    writeFileSync(jobsFile(), JSON.stringify(data));
    await emu.control('DELETE', '/requests');
    expect((await listed())[0]).toMatchObject({ id, state: 'succeeded', step: 2 });
    expect(await asked()).toEqual([id]);
    expect(record().jobs[0]!.final).toMatchObject({ state: 'succeeded', step: 2 });
  });
});

describe('aip jobs list: filters', () => {
  it('--model (id or name), --state and --limit', async () => {
    const other = (
      await run('models create --name other --base-model OpenPipe/Qwen3-14B-Instruct -q')
    ).stdout.trim();
    const a1 = await create();
    const b1 = await create('other');
    const a2 = await heldStill();
    await jobsEnded(emu, [a1, b1]);
    const ids = async (argv: string) => (await listed(argv)).map((j) => j.id);

    expect(await ids('jobs list --json --model agent')).toEqual([a2, a1]);
    expect(await ids('jobs list --json --model demo/agent')).toEqual([a2, a1]);
    expect(await ids('jobs list --json --model local/demo/other')).toEqual([b1]);
    expect(await ids(`jobs list --json --model ${other.toUpperCase()}`)).toEqual([b1]);
    expect(await ids('jobs list --json --model gent')).toEqual([]);
    expect(await ids('jobs list --json --state succeeded')).toEqual([b1, a1]);
    expect(await ids('jobs list --json --state queued --model agent')).toEqual([a2]);
    expect(await ids('jobs list --json --state succeeded --limit 1')).toEqual([b1]);
    expect((await run('jobs list -q --state failed')).stdout).toBe('');
    expect((await run('jobs list --state failed')).stderr).toBe('No jobs created from this machine match\n');

    // --limit alone asks only about the jobs it shows.
    await emu.control('DELETE', '/requests');
    expect(await ids('jobs list --json --limit 1')).toEqual([a2]);
    expect(await asked()).toEqual([a2]);
  });

  it('refuses a bad --state, --limit or --model before anything is read or sent', async () => {
    await create();
    await emu.control('DELETE', '/requests');
    for (const [argv, message] of [
      [
        'jobs list --state done',
        "error: option '--state <state>' argument 'done' is invalid. Allowed choices are queued, running, succeeded, failed, gone.\n",
      ],
      [
        'jobs list --limit 0',
        "error: option '--limit <n>' argument '0' is invalid. expected a whole number, at least 1\n",
      ],
      [
        'jobs list --limit x',
        "error: option '--limit <n>' argument 'x' is invalid. expected a whole number, at least 1\n",
      ],
      [['jobs', 'list', '--model', ' '], 'error: --model must not be empty\n'],
    ] as const) {
      const r = await run(argv as string | string[]);
      expect(r).toMatchObject({ code: 2, stdout: '', stderr: message });
    }
    expect(await emu.requests()).toEqual([]);
  });
});

describe('aip jobs list: jobs that are gone, and states that cannot be read', () => {
  it('marks a job the server no longer knows (404) as gone, and keeps that', async () => {
    const id = await heldStill();
    await emu.control('POST', '/reset');
    await emu.control('DELETE', '/requests');
    expect((await listed())[0]).toMatchObject({ id, state: 'gone', step: 0 });
    expect(await asked()).toEqual([id]);
    expect(record().jobs[0]!.final).toMatchObject({ state: 'gone' });
    await emu.control('DELETE', '/requests');
    expect((await run('jobs list --state gone -q')).stdout).toBe(`${id}\n`);
    expect(await emu.requests()).toEqual([]);
  });

  it('marks the jobs of a model deleted from here as gone, without asking about them', async () => {
    const done = await create();
    expect((await run(['jobs', 'wait', done, '--interval', '0.01'])).code).toBe(0);
    const queued = await heldStill();
    expect((await run('models delete agent --yes')).code).toBe(0);
    await emu.control('DELETE', '/requests');
    const jobs = await listed();
    expect(jobs.map((j) => [j.id, j.state])).toEqual([
      [queued, 'gone'],
      [done, 'gone'],
    ]);
    // What was known of the finished job stays.
    expect(jobs[1]).toMatchObject({ step: 2, num_sequences: 2 });
    expect(await emu.requests()).toEqual([]);
    // Not kept: a model remembered again (models create --return-existing) brings its jobs back.
    expect(record().jobs.map((j) => (j.final as { state?: string } | undefined)?.state)).toEqual([
      'succeeded',
      undefined,
    ]);
  });

  it('shows jobs whose events cannot be read as unknown, stops asking, and fails with the reason', async () => {
    const ids = [];
    for (let i = 0; i < 8; i++) ids.push(await heldStill());
    await emu.fault({ path: '/training/v1/preview/training-jobs/*/events', status: 500, times: 100 });
    await emu.control('DELETE', '/requests');
    const r = await run('--max-retries 0 jobs list');
    expect(r.code).toBe(1);
    expect(
      r.stdout
        .trimEnd()
        .split('\n')
        .map((l) => l.split('\t')[1]),
    ).toEqual(Array(8).fill('unknown'));
    expect(r.stderr).toMatch(
      /^warning: the state of 8 jobs could not be read: shown as unknown\nerror: The server had an error .*HTTP 500/,
    );
    // A few at a time, and none after the first failure was seen.
    expect((await asked()).length).toBeLessThanOrEqual(4);
    expect(record().jobs.every((j) => j.final === undefined)).toBe(true);
  });

  it('needs no key when every job it lists has finished, and says so when one has not', async () => {
    const done = await create();
    expect((await run(['jobs', 'wait', done, '--interval', '0.01'])).code).toBe(0);
    const noKey = { ...env, AIP_API_KEY: '' };
    expect((await run('jobs list -q', { env: noKey })).stdout).toBe(`${done}\n`);
    await heldStill();
    const r = await run('jobs list', { env: noKey });
    expect(r.code).toBe(4);
    expect(r.stdout.split('\n').map((l) => l.split('\t')[1])).toEqual(['unknown', 'succeeded', undefined]);
  });
});
