// A reward command's answer (issue 28): any value it prints that JSON cannot carry (1e999 reads as
// Infinity) fails that trajectory with the reason, in rollouts, eval and train rl alike, and the run
// goes on; the command has ended when its own process exits, so a child it left in the background,
// holding stdout, neither makes it time out nor outlives it.

import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { parseReward, runRewardCommand, unwritableScore } from '../../src/rollouts/reward-command.js';
import { useEmulator } from '../helpers/emulator.js';
import { readJsonLines } from '../helpers/json-lines.js';
import { patience } from '../helpers/patience.js';
import { waitFor } from '../helpers/wait.js';

const t = useEmulator();
const { emu, run } = t;

type Group = {
  trajectories: Array<{ reward: number; metrics?: Record<string, unknown>; metadata: { sample: number } }>;
  exceptions?: Array<{ message: string }>;
};

const groupsOf = (file: string) => readJsonLines<Group>(file);

let tasks: string;
beforeEach(async () => {
  await run('models create --name agent --base-model OpenPipe/Qwen3-14B-Instruct -q');
  tasks = join(t.dir, 'tasks.jsonl');
  writeFileSync(
    tasks,
    ['Describe a gradient.', 'Name a colour.']
      .map((content, i) => JSON.stringify({ id: `t${i}`, messages: [{ role: 'user', content }] }))
      .join('\n'),
  );
});

/** Printed as is by the reward command, one per sample: every one a number JSON cannot hold, but 0.75. */
const NOT_FINITE = ['1e999', '{"reward": 0.5, "metrics": {"length": -1e999}}', '0.75', '{"reward": -1e999}'];

function scoreBySample(printed: readonly string[]): string {
  const script = join(t.dir, 'score.sh');
  const cases = printed.map((text, i) => `  *'"sample":${i}'*) echo '${text}' ;;`).join('\n');
  writeFileSync(script, `#!/bin/sh\ninput=$(cat)\ncase "$input" in\n${cases}\nesac\n`, { mode: 0o755 });
  return script;
}

const EXPECTED_FAILURES = [
  'sample 0: reward: printed "1e999": the reward is not a finite number (JSON cannot hold it)',
  'sample 1: reward: printed "{\\"reward\\": 0.5, \\"metrics\\": {\\"length\\": -1e999}}": the metric "length" is not a finite number (JSON cannot hold it)',
  'sample 3: reward: printed "{\\"reward\\": -1e999}": "reward" is not a finite number (JSON cannot hold it)',
];

describe('a reward that is not a finite number', () => {
  it('is refused by the parser with the reason, whatever its spelling', () => {
    const refused = [
      '1e999',
      '-1e999',
      '1E400',
      '123456789e999999999',
      'NaN',
      'Infinity',
      '-Infinity',
      '0x10',
      '1_000',
      '+1',
      '.5',
      '5.',
      '01',
      '"0.5"',
      'true',
      'null',
      '[0.5]',
      '0.5 0.6',
      '{"reward": 1e999}',
      '{"reward": "1"}',
      '{"reward": 1, "metrics": {"a": 1e999}}',
      '{"reward": 1, "metrics": {"a": null}}',
      '{"reward": 1, "metrics": [1]}',
    ];
    for (const text of refused) expect([text, parseReward(text).ok]).toEqual([text, false]);
    expect(parseReward('1e999')).toEqual({
      ok: false,
      reason: 'printed "1e999": the reward is not a finite number (JSON cannot hold it)',
    });
    // What JSON holds is taken: -0 as 0 (as JSON writes it), an underflow as 0, large finite numbers.
    expect(parseReward('-0')).toEqual({ ok: true, scored: { reward: 0 } });
    expect(Object.is((parseReward('-0') as { scored: { reward: number } }).scored.reward, 0)).toBe(true);
    expect(parseReward('1e-400')).toEqual({ ok: true, scored: { reward: 0 } });
    expect(parseReward('1.7976931348623157e308')).toEqual({
      ok: true,
      scored: { reward: 1.7976931348623157e308 },
    });
    expect(parseReward('{"reward": -2.5e-3, "metrics": {"ok": false, "n": 1e300}}')).toEqual({
      ok: true,
      scored: { reward: -2.5e-3, metrics: { ok: false, n: 1e300 } },
    });
    // Whatever scored it, a reward a group cannot carry is named before a group is made.
    expect(unwritableScore({ reward: Number.NaN })).toBe('the reward NaN is not a finite number');
    expect(unwritableScore({ reward: 1, metrics: { x: Number.POSITIVE_INFINITY } })).toMatch(
      /"x" is Infinity/,
    );
    expect(unwritableScore({ reward: 1, metrics: { x: true, y: 2 } })).toBeUndefined();
  });

  it('fails that trajectory in rollouts, and the run goes on', async () => {
    const out = join(t.dir, 'groups.jsonl');
    const r = await run([
      'rollouts',
      '--model',
      'agent',
      '--tasks',
      tasks,
      '--reward-cmd',
      scoreBySample(NOT_FINITE),
      '-K',
      '4',
      '-o',
      out,
    ]);
    expect([r.code, r.stderr]).toEqual([
      0,
      expect.stringMatching(/Wrote 2 groups \(2 trajectories, 6 failed\)/),
    ]);
    const groups = groupsOf(out);
    expect(groups).toHaveLength(2);
    for (const group of groups) {
      expect(group.trajectories.map((tr) => [tr.metadata.sample, tr.reward])).toEqual([[2, 0.75]]);
      expect(group.exceptions!.map((e) => e.message)).toEqual(EXPECTED_FAILURES);
    }
  });

  it('fails that sample in eval, which scores the rest', async () => {
    const r = await run([
      'eval',
      '--model',
      'agent:step0',
      '--tasks',
      tasks,
      '--reward-cmd',
      scoreBySample(NOT_FINITE),
      '-K',
      '4',
      '--pass-threshold',
      '0.5',
      '--json',
    ]);
    expect([r.code, r.stderr]).toEqual([0, expect.not.stringContaining('internal')]);
    expect(JSON.parse(r.stdout).checkpoints).toEqual([
      expect.objectContaining({ samples: 8, failed: 6, mean: 0.75, pass_rate: 1 }),
    ]);
  });

  it('fails that trajectory in train rl, which trains on the rest', {
    timeout: patience(120_000),
  }, async () => {
    await emu.control('POST', '/job-plans', { steps: 1, times: 2 });
    const runDir = join(t.dir, 'run');
    const r = await run(
      [
        'train',
        'rl',
        '--model',
        'agent',
        '--tasks',
        tasks,
        '--reward-cmd',
        scoreBySample(NOT_FINITE),
        '-K',
        '4',
        '--steps',
        '1',
        '--interval',
        '0.01',
        '--run-dir',
        runDir,
      ],
      { sleepCap: 5 },
    );
    expect([r.code, r.stderr]).toEqual([0, expect.not.stringContaining('internal')]);
    const state = JSON.parse(readFileSync(join(runDir, 'run.json'), 'utf8'));
    expect(state.iterations[0]).toMatchObject({
      rollouts: { groups: 2, trajectories: 2, failed: 6 },
      job_state: 'succeeded',
    });
    const [create] = await emu.requests({ method: 'POST', path: '/training/v1/preview/training-jobs' });
    const sent = (create!.body as { trajectory_groups: Group[] }).trajectory_groups;
    expect(sent.flatMap((g) => g.trajectories.map((tr) => tr.reward))).toEqual([0.75, 0.75]);
  });
});

/** Whether a process is gone: no such pid, or only its exit status left (a zombie not yet reaped). */
function gone(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z');
  } catch {
    return true;
  }
}

/** The pids a reward command wrote to `file`: none when it was ended before it wrote any. */
const pidsIn = (file: string) =>
  (existsSync(file) ? readFileSync(file, 'utf8') : '')
    .split('\n')
    .filter(Boolean)
    .map((line) => Number(line));

describe.skipIf(process.platform !== 'linux')('a reward command that leaves a child running', () => {
  it('has ended when its own process exits: what it printed counts, and the child is stopped', {
    timeout: patience(120_000),
  }, async () => {
    const pids = join(t.dir, 'pids');
    const script = join(t.dir, 'score.sh');
    // The child holds stdout (and stderr) open for 1000 s; the command itself is done at once. The
    // timeout is far beyond the run: a run that waited for the child would fail on it, not pass late.
    writeFileSync(script, `#!/bin/sh\ncat >/dev/null\nsleep 1000 &\necho $! >> '${pids}'\necho 0.5\n`, {
      mode: 0o755,
    });
    const out = join(t.dir, 'groups.jsonl');
    const r = await run([
      'rollouts',
      '--model',
      'agent',
      '--tasks',
      tasks,
      '--reward-cmd',
      script,
      '--reward-timeout',
      '60',
      '-K',
      '2',
      '-o',
      out,
    ]);
    expect([r.code, r.stderr]).toEqual([0, expect.stringMatching(/Wrote 2 groups \(4 trajectories\)/)]);
    for (const group of groupsOf(out)) {
      expect(group.exceptions).toBeUndefined();
      expect(group.trajectories.map((tr) => tr.reward)).toEqual([0.5, 0.5]);
    }
    const children = pidsIn(pids);
    expect(children).toHaveLength(4);
    // Each was sent SIGKILL as its command was scored; the exits themselves come when they come.
    await waitFor(() => children.every(gone), patience(30_000), 'the left-over children gone');
  });

  it('is not waited for past its exit when something outside its group holds the pipe', {
    timeout: patience(60_000),
  }, async () => {
    const pidFile = join(t.dir, 'escaped');
    // setsid: a session, and so a process group, of its own, which ending the command's group misses.
    let escaped: number | undefined;
    try {
      const scored = await runRewardCommand(
        `setsid sleep 1000 & echo $! > '${pidFile}'; echo '{"reward": 0.25, "metrics": {"n": 1}}'`,
        {},
        { timeoutMs: patience(30_000), env: process.env },
      );
      escaped = pidsIn(pidFile)[0];
      expect(scored).toEqual({ ok: true, scored: { reward: 0.25, metrics: { n: 1 } } });
    } finally {
      escaped ??= pidsIn(pidFile)[0];
      if (escaped !== undefined && !gone(escaped)) process.kill(escaped, 'SIGKILL');
    }
  });

  it('still times out when the command itself does not exit, and is ended with what it started', {
    timeout: patience(60_000),
  }, async () => {
    const pids = join(t.dir, 'pids');
    const scored = await runRewardCommand(
      `sleep 1000 & echo $! >> '${pids}'; echo 0.5; exec sleep 1000`,
      {},
      { timeoutMs: 500, env: process.env },
    );
    expect(scored).toEqual({ ok: false, reason: 'timed out after 0.5s' });
    const children = pidsIn(pids);
    await waitFor(() => children.every(gone), patience(30_000), 'the command and its child gone');
  });
});
