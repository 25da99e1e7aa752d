// --reward-server through aip (issue 30): rollouts and eval against the emulator, scored by a node
// script that holds the same scoring logic as a --reward-cmd and as a server. The groups it writes are
// --reward-cmd's; a pool uses all its workers; a server that crashes on one trajectory is started again
// and only that trajectory fails, with the reason; and no server outlives the run.

import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { useEmulator } from '../helpers/emulator.js';
import { finishedJob } from '../helpers/jobs.js';
import { readJsonLines } from '../helpers/json-lines.js';
import { patience } from '../helpers/patience.js';
import { writeArithmeticTasks } from '../helpers/tasks.js';
import { waitFor } from '../helpers/wait.js';

const t = useEmulator();
const { run } = t;

/**
 * One scoring logic, two ways to run it: `score.cjs` reads one trajectory on stdin and prints its
 * reward (--reward-cmd); `score.cjs serve PIDS [POISON]` is a server (its pid and worker number
 * appended to PIDS as it starts) that answers each chunk of requests last first, and exits 3 on sample
 * 0 of the task POISON.
 */
const SCORE = String.raw`
const fs = require('node:fs');
const score = (input) => {
  const exact = input.reply.trim() === String(input.reference);
  return { reward: exact ? 1 : 0, metrics: { length: input.reply.length, exact } };
};
const [mode, pids, poison] = process.argv.slice(2);
if (mode !== 'serve') {
  let text = '';
  process.stdin.setEncoding('utf8').on('data', (c) => (text += c));
  process.stdin.on('end', () => process.stdout.write(JSON.stringify(score(JSON.parse(text)))));
} else {
  fs.appendFileSync(pids, process.pid + ' ' + process.env.AIP_REWARD_WORKER + '\n');
  let rest = '';
  process.stdin.setEncoding('utf8').on('data', (chunk) => {
    const lines = (rest + chunk).split('\n');
    rest = lines.pop();
    const answers = [];
    for (const line of lines) {
      const { id, trajectory } = JSON.parse(line);
      if (trajectory.task_id === poison && trajectory.trajectory.metadata.sample === 0) {
        process.stderr.write('boom on ' + poison + '\n');
        process.exit(3);
      }
      answers.push(JSON.stringify({ id, ...score(trajectory) }));
    }
    if (answers.length) process.stdout.write(answers.reverse().join('\n') + '\n');
  });
  process.stdin.on('end', () => process.exit(0));
}
`;

type Group = {
  trajectories: Array<{ reward: number; metrics?: Record<string, unknown>; metadata: { sample: number } }>;
  exceptions?: Array<{ message: string }>;
  metadata: Record<string, unknown>;
};

const groupsOf = (file: string) => readJsonLines<Group>(file);

/** Whether a process is gone: no such pid, or only its exit status left (a zombie not yet reaped). */
function gone(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z');
  } catch {
    return true;
  }
}

let tasks: string;
let script: string;
let pids: string;
const started = () =>
  readFileSync(pids, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const [pid, worker] = line.split(' ').map(Number);
      return { pid: pid!, worker: worker! };
    });
const node = (...args: string[]) => [process.execPath, ...args].map((a) => `"${a}"`).join(' ');

beforeEach(async () => {
  await run('models create --name agent --base-model OpenPipe/Qwen3-14B-Instruct -q');
  tasks = writeArithmeticTasks(join(t.dir, 'tasks.jsonl'), 6);
  script = join(t.dir, 'score.cjs');
  writeFileSync(script, SCORE);
  pids = join(t.dir, 'pids');
  writeFileSync(pids, '');
});

const rollouts = (out: string, ...reward: string[]) =>
  run(['rollouts', '--model', 'agent', '--tasks', tasks, '-K', '3', '--seed', '7', '-o', out, ...reward]);

describe.skipIf(process.platform !== 'linux')('aip rollouts --reward-server', () => {
  it('writes the groups --reward-cmd writes with the same scoring, and leaves nothing running', {
    timeout: patience(120_000),
  }, async () => {
    const byCommand = join(t.dir, 'by-command.jsonl');
    const byServer = join(t.dir, 'by-server.jsonl');
    const r1 = await rollouts(byCommand, '--reward-cmd', node(script));
    const r2 = await rollouts(byServer, '--reward-server', node(script, 'serve', pids), '--concurrency', '8');
    expect([r2.code, r2.stderr]).toEqual([0, expect.stringMatching(/Wrote 6 groups \(18 trajectories\)/)]);
    expect(r2.stderr).not.toContain('warning');
    expect(r1.code).toBe(0);
    // Written as each group completes: in task order here, and without the reward's flag.
    const withoutReward = (groups: Group[]) =>
      [...groups]
        .sort((a, b) => String(a.metadata.task_id).localeCompare(String(b.metadata.task_id)))
        .map((g) => ({ ...g, metadata: { ...g.metadata, rollout_reward: undefined } }));
    const server = groupsOf(byServer);
    expect(withoutReward(server)).toEqual(withoutReward(groupsOf(byCommand)));
    // Scores that vary, so that the comparison means something.
    const rewards = server.flatMap((g) => g.trajectories.map((tr) => tr.reward));
    expect(new Set(rewards).size).toBe(2);
    expect(server[0]!.metadata.rollout_reward).toBe(`--reward-server ${node(script, 'serve', pids)}`);
    const servers = started();
    expect(servers).toHaveLength(1);
    await waitFor(() => servers.every((s) => gone(s.pid)), patience(30_000), 'the server gone');
  });

  it('spreads trajectories over --reward-workers, every one used', {
    timeout: patience(120_000),
  }, async () => {
    const out = join(t.dir, 'groups.jsonl');
    const r = await rollouts(out, '--reward-server', node(script, 'serve', pids), '--reward-workers', '3');
    expect([r.code, r.stderr]).toEqual([0, expect.stringMatching(/Wrote 6 groups \(18 trajectories\)/)]);
    const servers = started();
    expect(servers.map((s) => s.worker).sort()).toEqual([0, 1, 2]);
    await waitFor(() => servers.every((s) => gone(s.pid)), patience(30_000), 'the servers gone');
  });

  it('starts a server that crashed again: only the trajectory it crashes on fails, with the reason', {
    timeout: patience(120_000),
  }, async () => {
    const out = join(t.dir, 'groups.jsonl');
    // One trajectory in flight at a time: the crash takes no other with it.
    const r = await rollouts(
      out,
      '--reward-server',
      node(script, 'serve', pids, 'sum-2'),
      '--concurrency',
      '1',
    );
    expect([r.code, r.stderr]).toEqual([
      0,
      expect.stringMatching(/Wrote 6 groups \(17 trajectories, 1 failed\)/),
    ]);
    expect(r.stderr).toContain(
      'warning: the reward server exited (exit 3: boom on sum-2): started again when needed, 1 trajectory in flight sent again once',
    );
    const groups = groupsOf(out);
    const failed = groups.filter((g) => g.exceptions);
    expect(failed.map((g) => [g.metadata.task_id, g.exceptions!.map((e) => e.message)])).toEqual([
      [
        'sum-2',
        [
          'sample 0: reward: the reward server exited (exit 3: boom on sum-2) while scoring it, on the retry too',
        ],
      ],
    ]);
    // Started, crashed, started again for the retry, crashed, started again for the rest.
    const servers = started();
    expect(servers).toHaveLength(3);
    await waitFor(() => servers.every((s) => gone(s.pid)), patience(30_000), 'the servers gone');
  });
});

describe.skipIf(process.platform !== 'linux')('aip eval --reward-server', () => {
  it('scores each checkpoint as --reward-cmd does, a server started per checkpoint and ended after it', {
    timeout: patience(120_000),
  }, async () => {
    await finishedJob(t, 4);
    const evalJson = async (...reward: string[]) => {
      const r = await run([
        'eval',
        '--model',
        'agent:step1',
        '--model',
        'agent:step4',
        '--tasks',
        tasks,
        '-K',
        '3',
        '--json',
        ...reward,
      ]);
      expect([r.code, r.stderr]).toEqual([0, expect.not.stringContaining('warning')]);
      return JSON.parse(r.stdout);
    };
    const byServer = await evalJson('--reward-server', node(script, 'serve', pids));
    expect(byServer).toEqual(await evalJson('--reward-cmd', node(script)));
    expect(byServer.checkpoints.map((c: { failed: number }) => c.failed)).toEqual([0, 0]);
    const servers = started();
    expect(servers).toHaveLength(2);
    await waitFor(() => servers.every((s) => gone(s.pid)), patience(30_000), 'the servers gone');
  });
});
