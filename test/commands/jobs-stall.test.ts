// jobs wait --stall and jobs create --wait --stall: no new event for that long ends the wait with exit
// 8 and a message that says how long, the last event seen, and how to resume; a bad duration is a usage
// error before anything is sent. The job is one the emulator holds still (queued for an hour).

import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { formatDuration, parseDuration } from '../../src/output/time.js';
import { words } from '../helpers/cli.js';
import { useEmulator } from '../helpers/emulator.js';

const t = useEmulator({ runOptions: { sleepCap: 5 } });
const { emu, run } = t;
let file: string;
beforeEach(async () => {
  await run('models create --name agent --base-model OpenPipe/Qwen3-14B-Instruct -q');
  file = join(t.dir, 'groups.jsonl');
  writeFileSync(file, '{"trajectories": [{"reward": 1}, {"reward": 0}]}\n'.repeat(3));
});

/** Makes the next job one the emulator holds still, for as long as `work` runs. */
async function holdingStill<T>(work: () => Promise<T>): Promise<T> {
  await emu.control('POST', '/job-plans', { steps: 3, step_ms: 3_600_000, times: 1 });
  try {
    return await work();
  } finally {
    await emu.control('POST', '/job-plans', { step_ms: 2 });
  }
}

const heldStill = () =>
  holdingStill(async () => (await run(words`jobs create rl --model agent --file ${file} -q`)).stdout.trim());

describe('--stall', () => {
  it('jobs wait: exit 8 when no event comes, saying for how long, that none came, and how to resume', async () => {
    const id = await heldStill();
    const r = await run(['jobs', 'wait', id, '--stall', '0.2', '--interval', '0.05']);
    expect(r).toMatchObject({
      code: 8,
      stdout: '',
      stderr: `error: no new event for 0.2s (--stall): the job is still queued, no event yet; it keeps running. Resume with: aip jobs wait ${id} --stall 0.2\n`,
    });
    // With --json, the job as the wait left it, then the error.
    const json = await run(['jobs', 'wait', id, '--stall', '150ms', '--json']);
    expect(json.code).toBe(8);
    expect(JSON.parse(json.stdout)).toMatchObject({ id, state: 'queued', step: 0 });
    expect(json.stderr).toMatch(/Resume with: aip jobs wait \S+ --stall 150ms\n$/);
    // The job was left as it was.
    expect((await emu.api('GET', `/preview/training-jobs/${id}`)).body.status).toBe('queued');
  });

  it('names the last event seen, when the events stop coming after some', async () => {
    const id = await heldStill();
    // The server keeps answering with the same two events: nothing new after the first poll.
    const started = {
      id: '7a1e0c3d-0000-4000-8000-000000000001',
      type: 'training_started',
      data: { num_sequences: 3 },
    };
    const step = {
      id: '7a1e0c3d-0000-4000-8000-000000000002',
      type: 'gradient_step',
      data: { reward: 0.5, loss: 0.25 },
    };
    await emu.fault({
      path: `/training/v1/preview/training-jobs/${id}/events`,
      status: 200,
      body: {
        object: 'list',
        data: [started, step],
        first_id: started.id,
        last_id: step.id,
        has_more: false,
      },
      times: 10_000,
    });
    const r = await run(['jobs', 'wait', id, '--stall', '0.25s', '--interval', '0.05']);
    expect(r.code).toBe(8);
    expect(r.stderr.trimEnd().split('\n').at(-1)).toBe(
      `error: no new event for 0.25s (--stall): the job is still running 1/3, last event: step 1/3  reward=0.5 loss=0.25 (id ${step.id}); it keeps running. Resume with: aip jobs wait ${id} --stall 0.25s`,
    );
  });

  it('counts polls that fail as no event: a server answering 503 all along is a stall too', async () => {
    const id = await heldStill();
    await emu.fault({ path: `/training/v1/preview/training-jobs/${id}/events`, status: 503, times: 10_000 });
    const r = await run(['jobs', 'wait', id, '--stall', '0.3'], { realSleep: true });
    expect(r.code).toBe(8);
    expect(r.stderr).toMatch(/still waiting, next try in/);
    expect(r.stderr).toMatch(/error: no new event for 0.3s \(--stall\)/);
    // The retry pauses were cut short at the stall, not waited out.
    expect(r.sleeps.every((ms) => ms <= 300)).toBe(true);
  });

  it('jobs create --wait --stall: the id on stdout, then exit 8; the create sent once', async () => {
    const r = await holdingStill(() =>
      run(words`jobs create rl --model agent --file ${file} --wait --stall 0.2 --interval 0.05`),
    );
    expect(r.code).toBe(8);
    const id = r.stdout.trim();
    expect(r.stderr).toMatch(
      new RegExp(
        `error: no new event for 0.2s \\(--stall\\): the job is still queued, no event yet; .* aip jobs wait ${id} --stall 0.2\\n$`,
      ),
    );
    expect(await emu.requests({ method: 'POST', path: '/training/v1/preview/training-jobs' })).toHaveLength(
      1,
    );
  });

  it('a --timeout that comes first is still exit 7; events that keep coming never stall', async () => {
    const id = await heldStill();
    const timeout = await run(['--timeout', '0.1', 'jobs', 'wait', id, '--stall', '1h']);
    expect(timeout.code).toBe(7);
    await emu.control('POST', '/job-plans', { steps: 100, step_ms: 10, times: 1 });
    try {
      const moving = (await run(words`jobs create rl --model agent --file ${file} -q`)).stdout.trim();
      // 100 steps of 10 ms: a second in all, more than the stall, never 0.4 s without an event.
      expect((await run(['jobs', 'wait', moving, '--stall', '0.4', '--interval', '0.01'])).code).toBe(0);
    } finally {
      await emu.control('POST', '/job-plans', { step_ms: 2 });
    }
  });

  it('refuses a bad duration, and --stall without --wait, before anything is sent', async () => {
    const id = await heldStill();
    await emu.control('DELETE', '/requests');
    for (const value of ['0', '-1', 'abc', '15 m', '1h30', '5d', '', '0s']) {
      const r = await run(['jobs', 'wait', id, '--stall', value]);
      expect([value, r.code, r.stdout]).toEqual([value, 2, '']);
      expect(r.stderr).toBe(
        `error: option '--stall <duration>' argument '${value}' is invalid. expected a duration above 0: seconds (90), or 90s, 15m, 1h, 1h30m\n`,
      );
    }
    const noWait = await run(words`jobs create rl --model agent --file ${file} --stall 15m`);
    expect(noWait).toMatchObject({ code: 2, stderr: 'error: --stall is for waiting: give --wait with it\n' });
    expect(await emu.requests()).toEqual([]);
  });
});

describe('durations', () => {
  it('reads seconds and units, and writes what it reads back', () => {
    expect(
      ['90', '90s', '0.5', '15m', '1h', '1h30m', '200ms', '1.5h', ' 2m '].map((d) => parseDuration(d)),
    ).toEqual([90_000, 90_000, 500, 900_000, 3_600_000, 5_400_000, 200, 5_400_000, 120_000]);
    for (const bad of ['', '0', 'm', '1x', '1 h', '-5s', '1e3', 'Infinity', `${'9'.repeat(400)}`])
      expect([bad, parseDuration(bad)]).toEqual([bad, undefined]);
    for (const ms of [200, 1500, 59_999, 60_000, 90_000, 3_600_000, 5_430_000])
      expect(parseDuration(formatDuration(ms))).toBe(ms);
    expect([250, 90_000, 5_430_000].map(formatDuration)).toEqual(['0.25s', '1m30s', '1h30m30s']);
  });
});
