// aip events <job>: pages, --all over 300 events, --json / --jsonl, and --follow through faults.

import { EventEmitter } from 'node:events';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { main } from '../../src/main.js';
import { useEmulator } from '../helpers/emulator.js';
import { fakeIO } from '../helpers/io.js';
import { waitFor } from '../helpers/wait.js';

// run() polls at the emulator's pace (sleepCap) without slowing the suite.
const t = useEmulator({ runOptions: { sleepCap: 5 } });
const { emu, env, run } = t;
let file: string;
beforeEach(async () => {
  await run('models create --name agent --base-model OpenPipe/Qwen3-14B-Instruct -q');
  file = join(t.dir, 'groups.jsonl');
  writeFileSync(file, '{"trajectories": [{"reward": 1}, {"reward": 0}]}\n');
});

/** A job of `steps` gradient steps (steps + 2 events), run to its end unless told not to. */
async function job(steps: number, finish = true): Promise<string> {
  await emu.control('POST', '/job-plans', { steps });
  const id = (await run(['jobs', 'create', 'rl', '--model', 'agent', '--file', file, '-q'])).stdout.trim();
  if (finish) expect((await run(['jobs', 'wait', id, '--interval', '0.01'])).code).toBe(0);
  return id;
}

type Event = { id: string; type: string; data: Record<string, unknown> };

describe('aip events', () => {
  it('--all follows the cursor over 300 events and --json prints one array', async () => {
    const id = await job(298);
    await emu.control('DELETE', '/requests');
    const r = await run(['events', id, '--all', '--json']);
    const events = JSON.parse(r.stdout) as Event[];
    expect(events).toHaveLength(300);
    expect(events[0]!.type).toBe('training_started');
    expect(events.at(-1)!.type).toBe('training_ended');
    expect(events.filter((e) => e.type === 'gradient_step').map((e) => e.data.gradient_step)).toEqual(
      Array.from({ length: 298 }, (_, i) => i + 1),
    );
    expect(new Set(events.map((e) => e.id)).size).toBe(300);
    const pages = await emu.requests({ path: `/training/v1/preview/training-jobs/${id}/events` });
    expect(pages.map((p) => [p.query.limit, p.query.after])).toEqual([
      ['100', undefined],
      ['100', events[99]!.id],
      ['100', events[199]!.id],
    ]);
  });

  it('prints one page with the cursor to go on; a table on a terminal, TSV when piped', async () => {
    const id = await job(4);
    const piped = await run(['events', id, '--limit', '2']);
    const rows = piped.stdout
      .trimEnd()
      .split('\n')
      .map((l) => l.split('\t'));
    expect(rows.map((r) => r[0])).toEqual(['training_started', 'gradient_step']);
    expect(JSON.parse(rows[0]![2]!)).toEqual({ num_sequences: 4 });
    expect(piped.stderr).toBe(
      `More events: aip events ${id} --after ${rows[1]![1]} (or --all, or --follow)\n`,
    );
    const tty = await run(['events', id, '--after', rows[1]![1]!], {
      stdoutTTY: true,
      env: { ...env, NO_COLOR: '1' },
    });
    const lines = tty.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^TYPE {12}ID {36}DATA$/);
    expect(lines[1]).toMatch(/^gradient_step {3}[0-9a-f-]{36} {2}step 2 reward=[\d.]+ loss=[\d.]+$/);
    expect(lines.at(-1)).toMatch(/^training_ended {2}[0-9a-f-]{36}$/);
  });

  it('--jsonl writes one event per line', async () => {
    const id = await job(3);
    const r = await run(['events', id, '--all', '--jsonl']);
    const lines = r.stdout
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as Event);
    expect(lines.map((e) => e.type)).toEqual([
      'training_started',
      'gradient_step',
      'gradient_step',
      'gradient_step',
      'training_ended',
    ]);
    expect((await run(['events', id, '--jsonl', '--json'])).code).toBe(2);
  });

  it('--follow prints every event exactly once through 503s and dropped connections', async () => {
    const id = await job(20, false);
    const path = `/training/v1/preview/training-jobs/${id}/events`;
    await emu.fault({ path, status: 503, times: 4 });
    await emu.fault({ path, drop: true, times: 3 });
    await emu.fault({ path, cut_after_bytes: 30, times: 2 });
    const r = await run(['--max-retries', '1', 'events', id, '--follow', '--jsonl', '--interval', '0.01']);
    expect(r.code).toBe(0);
    const events = r.stdout
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as Event);
    expect(events).toHaveLength(22);
    expect(new Set(events.map((e) => e.id)).size).toBe(22);
    expect(events.map((e) => e.type).filter((t) => t === 'gradient_step')).toHaveLength(20);
    expect(events.at(-1)!.type).toBe('training_ended');
    expect(r.stderr).toMatch(/still waiting, next try in/);
  });

  it('--follow backs off from 1 s to at most 30 s, and starts again from 1 s after an answer (issue 19)', async () => {
    const waits = (text: string) => [...text.matchAll(/next try in ([\d.]+)s/g)].map((m) => Number(m[1]));
    const id = await job(20, false);
    const path = `/training/v1/preview/training-jobs/${id}/events`;
    await emu.fault({ path, status: 503, times: 8 });
    const r = await run(['--max-retries', '0', 'events', id, '--follow', '--jsonl', '--interval', '0.01']);
    expect(r.code).toBe(0);
    expect(waits(r.stderr)).toEqual([1, 2, 4, 8, 16, 30, 30, 30]);
    // Three failures, one answer, two failures: the answer starts the waits again from 1 s. The job
    // takes a second, so that it is still running when the answer comes (the failures take ms).
    await emu.control('POST', '/job-plans', { steps: 20, step_ms: 50 });
    const second = (
      await run(['jobs', 'create', 'rl', '--model', 'agent', '--file', file, '-q'])
    ).stdout.trim();
    const secondPath = `/training/v1/preview/training-jobs/${second}/events`;
    await emu.fault({ path: secondPath, status: 503, times: 3 });
    await emu.fault({ path: secondPath, status: 503, skip: 1, times: 2 });
    const again = await run([
      '--max-retries',
      '0',
      'events',
      second,
      '--follow',
      '--jsonl',
      '--interval',
      '0.01',
    ]);
    expect(again.code).toBe(0);
    expect(waits(again.stderr)).toEqual([1, 2, 4, 1, 2]);
  });

  it('--follow resumes after a given cursor without repeating it, and --json collects one array', async () => {
    const id = await job(5);
    const all = JSON.parse((await run(['events', id, '--all', '--json'])).stdout) as Event[];
    const rest = JSON.parse(
      (await run(['events', id, '--follow', '--after', all[2]!.id, '--json'])).stdout,
    ) as Event[];
    expect(rest.map((e) => e.id)).toEqual(all.slice(3).map((e) => e.id));
  });

  it('on Ctrl-C --follow prints the cursor to resume from and exits 130', async () => {
    await emu.control('POST', '/job-plans', { step_ms: 60_000 });
    try {
      const id = await job(3, false);
      const signals = new EventEmitter();
      const following = run(['events', id, '--follow'], { signals, sleepCap: 1000 });
      await waitFor(() => signals.listenerCount('SIGINT') > 0);
      signals.emit('SIGINT');
      const r = await following;
      expect(r.code).toBe(130);
      expect(r.stderr).toBe(
        `Stopped following; resume with: aip events ${id} --follow\nerror: interrupted\n`,
      );
    } finally {
      await emu.control('POST', '/job-plans', { step_ms: 2 });
    }
  });

  it('maps an unknown job to exit 3 and a bad cursor to exit 2', async () => {
    const missing = await run(['events', '99999999-9999-4999-8999-999999999999']);
    expect(missing.code).toBe(3);
    const id = await job(1);
    const cursor = await run(['events', id, '--after', 'nope']);
    expect(cursor.code).toBe(2);
    expect(cursor.stderr).toContain('query.after: Value error, no event nope in this job');
  });
});

describe('aip events --follow, the hard cases', () => {
  it('resuming after the last event of an ended job says so and ends', async () => {
    const id = await job(2);
    const all = JSON.parse((await run(['events', id, '--all', '--json'])).stdout) as Event[];
    const r = await run(['events', id, '--follow', '--after', all.at(-1)!.id]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(`The job has ended (succeeded); there are no events after ${all.at(-1)!.id}\n`);
  });

  it('stops when nobody reads its output any more', async () => {
    const id = await job(5000, false);
    const { io, stdout } = fakeIO({ env });
    const done = main(['events', id, '--follow', '--interval', '0.01'], {
      env,
      io,
      signals: new EventEmitter(),
      sleep: (ms) => new Promise((r) => setTimeout(r, Math.min(ms, 5))),
    });
    await waitFor(() => stdout.text.includes('gradient_step'));
    io.markStdoutClosed();
    expect(await done).toBe(0);
    expect(
      ((await emu.control('GET', '/state')).body as { jobs: Array<{ status: string }> }).jobs[0]!.status,
    ).toBe('running');
  });

  it('keeps the output format in its resume command', async () => {
    const id = await job(5000, false);
    const signals = new EventEmitter();
    const { io, stdout, stderr } = fakeIO({ env });
    const following = main(['events', id, '--follow', '--jsonl', '--interval', '0.5'], {
      env,
      io,
      signals,
      sleep: (ms) => new Promise((r) => setTimeout(r, Math.min(ms, 5))),
    });
    await waitFor(() => stdout.text.includes('gradient_step'));
    signals.emit('SIGINT');
    expect(await following).toBe(130);
    const cursor = JSON.parse(stdout.text.trim().split('\n').at(-1)!).id;
    expect(stderr.text).toBe(
      `Stopped following; resume with: aip events ${id} --follow --after ${cursor} --jsonl --interval 0.5\nerror: interrupted\n`,
    );
  });
});
