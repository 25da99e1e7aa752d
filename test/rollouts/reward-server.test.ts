// --reward-server at the unit level (issue 30): the scorer against small node scripts as servers. What
// each request asks of the script is written in its reply (JSON): answer now, hold the answer until the
// next one, crash, hang, print given lines. Nothing here waits on the clock but the hang, whose
// timeout is the point; everything else waits for events.

import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Context } from '../../src/context.js';
import type { RewardResult } from '../../src/rollouts/reward-command.js';
import { MAX_LINE_CHARS, rewardServerScorer } from '../../src/rollouts/reward-server.js';
import type { Scorer } from '../../src/rollouts/run.js';
import type { Task } from '../../src/rollouts/tasks.js';
import { tempConfigDir } from '../helpers/cli.js';
import { fakeIO } from '../helpers/io.js';
import { offlineContext } from '../helpers/offline-context.js';
import { patience } from '../helpers/patience.js';
import { tempDir } from '../helpers/temp.js';
import { waitFor } from '../helpers/wait.js';

/**
 * The server: writes its pid (and its worker number) to argv[2] as it starts, then answers each
 * request line as its reply asks:
 *   {"reward": r}        answers r at once (metrics: its pid and worker), then every held answer, the
 *                        last held first;
 *   {"hold": r}          holds the answer r until the next {"reward"};
 *   {"crashOnce": r}     exits 3 (saying "boom" on stderr) the first time (marker file argv[3]),
 *                        answers r after that;
 *   {"crash": true}      exits 3, saying "boom";
 *   {"hang": true}       answers nothing from then on, and does not exit when its stdin closes;
 *   {"print": [lines]}   prints these lines ($ID: the request's id);
 *   {"child": true}      starts `sleep 1000` (its pid to argv[2] as "child <pid>") and answers 1;
 *   {"keepAlive": true}  answers 1, and does not exit when its stdin closes.
 */
const SERVER = String.raw`
const fs = require('node:fs');
const { spawn } = require('node:child_process');
const [pids, marker] = process.argv.slice(2);
fs.appendFileSync(pids, 'server ' + process.pid + ' ' + process.env.AIP_REWARD_WORKER + '\n');
let held = [];
let hung = false;
let keepAlive = false;
const answer = (id, reward) =>
  process.stdout.write(JSON.stringify({ id, reward, metrics: { pid: process.pid, worker: Number(process.env.AIP_REWARD_WORKER) } }) + '\n');
const crash = () => { process.stderr.write('loading\nboom\n'); process.exit(3); };
let rest = '';
process.stdin.setEncoding('utf8').on('data', (chunk) => {
  const lines = (rest + chunk).split('\n');
  rest = lines.pop();
  for (const line of lines) {
    if (hung) return;
    const { id, trajectory } = JSON.parse(line);
    const ask = JSON.parse(trajectory.reply);
    if ('hold' in ask) { held.push([id, ask.hold]); continue; }
    if ('crash' in ask) crash();
    if ('crashOnce' in ask && !fs.existsSync(marker)) { fs.writeFileSync(marker, ''); crash(); }
    if ('hang' in ask) { hung = true; setInterval(() => {}, 1e6); return; }
    if ('print' in ask) { for (const l of ask.print) process.stdout.write(l.replaceAll('$ID', id) + '\n'); continue; }
    if ('child' in ask) {
      const child = spawn('sleep', ['1000'], { stdio: 'ignore' });
      fs.appendFileSync(pids, 'child ' + child.pid + '\n');
    }
    if ('keepAlive' in ask) { keepAlive = true; setInterval(() => {}, 1e6); }
    answer(id, ask.reward ?? ask.crashOnce ?? 1);
    for (const [heldId, reward] of held.reverse()) answer(heldId, reward);
    held = [];
  }
});
process.stdin.on('end', () => { if (!hung && !keepAlive) process.exit(0); });
`;

const task: Task = { id: 't0', messages: [{ role: 'user', content: 'score me' }] } as Task;

interface Fixture {
  ctx: Context;
  stderr: { text: string };
  pidFile: string;
  command: string;
  /** The server processes started so far, and what they started. */
  servers(): Array<{ pid: number; worker: number }>;
  children(): number[];
}

const closers: Scorer[] = [];
afterEach(async () => {
  for (const scorer of closers.splice(0)) await scorer.close?.();
});

function fixture(): Fixture {
  const dir = tempDir('aip-reward-server-');
  const script = join(dir, 'server.cjs');
  writeFileSync(script, SERVER);
  const pidFile = join(dir, 'pids');
  writeFileSync(pidFile, '');
  const { io, stderr } = fakeIO({ env: { NO_COLOR: '1' } });
  const ctx = offlineContext({ ...process.env, AIP_CONFIG_DIR: tempConfigDir() }, io);
  const records = () =>
    readFileSync(pidFile, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => line.split(' '));
  return {
    ctx,
    stderr,
    pidFile,
    command: `"${process.execPath}" "${script}" "${pidFile}" "${join(dir, 'crashed')}"`,
    servers: () =>
      records()
        .filter(([kind]) => kind === 'server')
        .map(([, pid, worker]) => ({ pid: Number(pid), worker: Number(worker) })),
    children: () =>
      records()
        .filter(([kind]) => kind === 'child')
        .map(([, pid]) => Number(pid)),
  };
}

function scorerOf(f: Fixture, options: { rewardWorkers?: number; rewardTimeout?: number } = {}): Scorer {
  const scorer = rewardServerScorer(
    f.ctx,
    f.command,
    { rewardTimeout: 600, ...options },
    { closeGraceMs: 200 },
  );
  closers.push(scorer);
  return scorer;
}

const ask = (scorer: Scorer, what: Record<string, unknown>, signal = new AbortController().signal) =>
  scorer(task, { messages_and_choices: [] }, JSON.stringify(what), signal);

const rewardOf = (result: RewardResult) => (result.ok ? result.scored.reward : result.reason);

/** Whether a process is gone: no such pid, or only its exit status left (a zombie not yet reaped). */
function gone(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z');
  } catch {
    return true;
  }
}

const allGone = (pids: number[]) => waitFor(() => pids.every(gone), patience(30_000), `${pids} gone`);

const occurrences = (text: string, part: string) => text.split(part).length - 1;

describe.skipIf(process.platform === 'win32')('a reward server', () => {
  it('answers in any order: each answer goes to its trajectory by id', async () => {
    const f = fixture();
    const scorer = scorerOf(f);
    const results = await Promise.all([
      ask(scorer, { hold: 0.1 }),
      ask(scorer, { hold: 0.2 }),
      ask(scorer, { reward: 0.3 }),
    ]);
    expect(results.map(rewardOf)).toEqual([0.1, 0.2, 0.3]);
    const [server] = f.servers();
    expect(f.servers()).toHaveLength(1);
    expect(results[0]).toEqual({
      ok: true,
      scored: { reward: 0.1, metrics: { pid: server!.pid, worker: 0 } },
    });
    await scorer.close!();
    await allGone([server!.pid]);
    expect(f.stderr.text).toBe('');
  });

  it('is started again after a crash, its trajectories in flight sent once more, then failed', async () => {
    const f = fixture();
    const scorer = scorerOf(f);
    // The first server holds 0.1 and crashes on the next; the second is sent both again, and answers.
    const [held, crashed] = await Promise.all([ask(scorer, { hold: 0.1 }), ask(scorer, { crashOnce: 0.7 })]);
    expect([rewardOf(held!), rewardOf(crashed!)]).toEqual([0.1, 0.7]);
    expect(f.servers()).toHaveLength(2);
    expect(f.stderr.text).toBe(
      'warning: the reward server exited (exit 3: boom): started again when needed, 2 trajectories in flight sent again once\n',
    );
    // One that crashes every server it is sent to fails with the reason after its one retry.
    expect(await ask(scorer, { crash: true })).toEqual({
      ok: false,
      reason: 'the reward server exited (exit 3: boom) while scoring it, on the retry too',
    });
    // And the next is scored by a server started for it.
    expect(rewardOf(await ask(scorer, { reward: 0.9 }))).toBe(0.9);
    expect(f.servers()).toHaveLength(4);
    await scorer.close!();
    await allGone(f.servers().map((s) => s.pid));
  });

  it('is ended when it hangs: that trajectory times out, the others are sent to a new one', {
    timeout: patience(120_000),
  }, async () => {
    const f = fixture();
    // The one short timeout of these tests: the hang is what is tested.
    const seconds = patience(2000) / 1000;
    const scorer = scorerOf(f, { rewardTimeout: seconds });
    const [hung, waiting] = await Promise.all([ask(scorer, { hang: true }), ask(scorer, { reward: 0.4 })]);
    expect(hung).toEqual({ ok: false, reason: `timed out after ${seconds}s` });
    expect(rewardOf(waiting!)).toBe(0.4);
    const [first, second] = f.servers();
    expect(second).toBeDefined();
    await allGone([first!.pid]);
    expect(f.stderr.text).toContain(
      `warning: the reward server answered nothing for ${seconds}s (hung), and was ended: started again when needed, 1 trajectory in flight sent again once`,
    );
    await scorer.close!();
    await allGone([second!.pid]);
  });

  it('ignores what is not an answer to a trajectory in flight, saying so once; a bad answer fails its own', async () => {
    const f = fixture();
    const scorer = scorerOf(f);
    const results = await Promise.all([
      ask(scorer, { print: ['Loading weights…', '{"id":$ID,"reward":0.5}'] }),
      ask(scorer, {
        print: ['not json either', '[1, 2]', '{"id":$ID,"reward":0.6}', '{"id":$ID,"reward":0.9}'],
      }),
      ask(scorer, {
        print: ['{"id":99999,"reward":1}', '{"id":"$ID","reward":1}', '{"id":$ID,"reward":0.25}'],
      }),
      ask(scorer, { print: ['{"id":$ID,"reward":1e999}'] }),
      ask(scorer, { print: ['{"id":$ID,"reward":1,"metrics":{"a":"x"}}'] }),
      ask(scorer, { print: ['{"id":$ID}'] }),
      ask(scorer, { print: ['{"id":$ID,"error":"no tests found"}'] }),
      ask(scorer, {
        print: [
          `{"id":$ID,"reward":1,"pad":"${'x'.repeat(MAX_LINE_CHARS)}"}`,
          'x'.repeat(MAX_LINE_CHARS + 5),
        ],
      }),
      ask(scorer, { reward: 0.75 }),
    ]);
    expect(results.map(rewardOf)).toEqual([
      0.5,
      0.6,
      0.25,
      'printed "{\\"id\\":4,\\"reward\\":1e999}": "reward" is not a finite number (JSON cannot hold it)',
      '"metrics" must be an object of numbers or booleans',
      'printed "{\\"id\\":6}": no numeric "reward"',
      'answered an error: no tests found',
      `answered with a line longer than ${MAX_LINE_CHARS} characters`,
      0.75,
    ]);
    const warned = f.stderr.text;
    expect(warned.split('\n').filter(Boolean)).toHaveLength(4);
    for (const warning of [
      'warning: the reward server printed a line that is not an answer, ignored (its logs belong on stderr): "Loading weights…"',
      'warning: the reward server answered id 2 more than once: the first answer counts',
      'warning: the reward server answered an id it was not sent (99999), ignored',
      `warning: the reward server printed a line longer than ${MAX_LINE_CHARS} characters, ignored`,
    ])
      expect([warning, occurrences(warned, warning)]).toEqual([warning, 1]);
    // None of it was a failure of the server: it was never started again.
    expect(f.servers()).toHaveLength(1);
  });

  it('spreads requests over a pool: the one with the fewest in flight, every worker used', async () => {
    const f = fixture();
    const scorer = scorerOf(f, { rewardWorkers: 3 });
    const results = await Promise.all(Array.from({ length: 6 }, (_, i) => ask(scorer, { reward: i / 10 })));
    const workers = results.map((r) => (r.ok ? r.scored.metrics?.worker : r.reason));
    expect(workers).toEqual([0, 1, 2, 0, 1, 2]);
    // One at a time, too: ties are taken in turn.
    const oneByOne: unknown[] = [];
    for (let i = 0; i < 3; i++) {
      const r = await ask(scorer, { reward: 1 });
      oneByOne.push(r.ok ? r.scored.metrics?.worker : r.reason);
    }
    expect(oneByOne).toEqual([0, 1, 2]);
    // Started side by side: in whatever order they came up.
    expect(
      f
        .servers()
        .map((s) => s.worker)
        .sort(),
    ).toEqual([0, 1, 2]);
    await scorer.close!();
    await allGone(f.servers().map((s) => s.pid));
  });

  it('is ended on close with whatever it started, even if it does not exit; then starts again', async () => {
    const f = fixture();
    const scorer = scorerOf(f);
    expect(rewardOf(await ask(scorer, { child: true }))).toBe(1);
    expect(rewardOf(await ask(scorer, { keepAlive: true }))).toBe(1);
    const [server] = f.servers();
    const [child] = f.children();
    expect(gone(child!)).toBe(false);
    await scorer.close!();
    await allGone([server!.pid, child!]);
    // Called after close, it starts again.
    expect(rewardOf(await ask(scorer, { reward: 0.5 }))).toBe(0.5);
    expect(f.servers()).toHaveLength(2);
    await scorer.close!();
    await allGone(f.servers().map((s) => s.pid));
  });

  it('fails a trajectory at once when stopped (Ctrl-C), without waiting for its answer', async () => {
    const f = fixture();
    const scorer = scorerOf(f);
    const stop = new AbortController();
    const pending = ask(scorer, { hold: 0.5 }, stop.signal);
    await waitFor(() => f.servers().length === 1);
    stop.abort();
    expect(await pending).toEqual({ ok: false, reason: 'stopped' });
    // Its late answer, when it comes, is no news.
    expect(rewardOf(await ask(scorer, { reward: 0.2 }))).toBe(0.2);
    expect(f.stderr.text).toBe('');
  });

  it('is not started again after failing without answering, three times in a row', async () => {
    const f = fixture();
    const starts = join(tempDir(), 'starts');
    const scorer = rewardServerScorer(
      f.ctx,
      `echo started >> '${starts}'; echo 'no such model' >&2; exit 7`,
      { rewardTimeout: 600 },
    );
    closers.push(scorer);
    expect(await ask(scorer, { reward: 1 })).toEqual({
      ok: false,
      reason: 'the reward server exited (exit 7: no such model) while scoring it, on the retry too',
    });
    const notAgain =
      'the reward server is not started again: it failed 3 times without answering (last: exited (exit 7: no such model))';
    expect(await ask(scorer, { reward: 1 })).toEqual({ ok: false, reason: notAgain });
    expect(await ask(scorer, { reward: 1 })).toEqual({ ok: false, reason: notAgain });
    expect(readFileSync(starts, 'utf8').split('\n').filter(Boolean)).toHaveLength(3);
  });
});
