// aip reward test on the emulator: fresh samples scored with a built-in reward, given replies scored
// offline by a reward command (nothing sent, no key), a failing reward command (exit 1 with the
// reasons), the --json document, and a bad replies file refused line by line before anything runs.
// Timings are printed and checked to be numbers, never compared with anything.

import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { useEmulator } from '../helpers/emulator.js';
import { writeArithmeticTasks } from '../helpers/tasks.js';

const t = useEmulator();
const { emu, run } = t;
const CHAT = '/training/v1/chat/completions';

/** A reward command: node running a script that reads the trajectory on stdin. */
function rewardScript(name: string, body: string): string {
  const file = join(t.dir, name);
  writeFileSync(
    file,
    `let input = '';
process.stdin.on('data', (c) => (input += c));
process.stdin.on('end', () => {
  const { reply, reference, task_id, trajectory } = JSON.parse(input);
${body}
});
`,
  );
  return `"${process.execPath}" "${file}"`;
}

const TASKS = [
  { id: 'add', messages: [{ role: 'user', content: 'What is 40 + 2?' }], reference: '42' },
  { id: 'mul', messages: [{ role: 'user', content: 'What is 6 * 7?' }], reference: '42' },
  { id: 'sub', messages: [{ role: 'user', content: 'What is 50 - 8?' }], reference: '42' },
];

let tasks: string;
beforeEach(() => {
  tasks = join(t.dir, 'tasks.jsonl');
  writeFileSync(tasks, `${TASKS.map((task) => JSON.stringify(task)).join('\n')}\n`);
});

/** The environment without a key, its URLs at the emulator: whatever is sent would be recorded. */
const offlineEnv = () => {
  const { AIP_API_KEY: _key, ...rest } = t.env;
  return rest;
};

function writeReplies(lines: unknown[]): string {
  const file = join(t.dir, 'replies.jsonl');
  writeFileSync(file, `${lines.map((l) => JSON.stringify(l)).join('\n')}\n`);
  return file;
}

const REPORT_KEYS = [
  'constant_groups',
  'failed',
  'failures',
  'mode',
  'reward',
  'rewards',
  'samples',
  'scored',
  'tasks',
  'timing',
  'too_small_groups',
];

describe('aip reward test', () => {
  it('on fresh samples: K per task through the rollouts run, scored with --reward exact (--json)', async () => {
    await run('models create --name agent --base-model OpenPipe/Qwen3-14B-Instruct -q');
    const math = writeArithmeticTasks(join(t.dir, 'math.jsonl'), 3);
    const r = await run([
      'reward',
      'test',
      '--model',
      'agent',
      '--tasks',
      math,
      '--reward',
      'exact',
      '-K',
      '4',
      '--seed',
      '7',
      '--json',
    ]);
    expect([r.code, r.stderr.includes('error')]).toEqual([0, false]);
    const report = JSON.parse(r.stdout);
    expect(Object.keys(report).sort()).toEqual(REPORT_KEYS);
    expect(report).toMatchObject({
      mode: 'sampled',
      reward: '--reward exact',
      tasks: 3,
      samples: 12,
      scored: 12,
      failed: 0,
      failures: [],
      too_small_groups: 0,
    });
    expect(report.rewards.count).toBe(12);
    for (const key of ['mean', 'std', 'min', 'max']) expect(typeof report.rewards[key]).toBe('number');
    expect(Object.keys(report.rewards.quantiles)).toEqual(['p10', 'p25', 'p50', 'p75', 'p90']);
    // exact scores 0 or 1: a bin per value, the counts adding up to every sample.
    for (const bin of report.rewards.histogram) {
      expect([0, 1]).toContain(bin.from);
      expect(bin.to).toBe(bin.from);
    }
    expect(report.rewards.histogram.reduce((n: number, b: { count: number }) => n + b.count, 0)).toBe(12);
    for (const group of report.constant_groups) expect(group.samples).toBe(4);
    expect(report.timing.calls).toBe(12);
    for (const key of ['median_ms', 'p95_ms', 'max_ms', 'total_ms'])
      expect(typeof report.timing[key]).toBe('number');
    // Sampled as aip rollouts samples: 12 requests with logprobs, each with its own seed.
    const sent = (await emu.requests({ method: 'POST', path: CHAT })).filter((x) => x.status === 200);
    expect(sent).toHaveLength(12);
    expect(new Set(sent.map((s) => (s.body as { seed: number }).seed)).size).toBe(12);
    expect(sent[0]!.body).toMatchObject({ logprobs: true, model: 'wandb-artifact:///local/demo/agent' });
  });

  it('on fresh samples, for a terminal: the groups whose rewards do not vary are listed', async () => {
    await run('models create --name agent --base-model OpenPipe/Qwen3-14B-Instruct -q');
    const chatty = join(t.dir, 'chatty.jsonl');
    // The emulator answers anything but arithmetic with "You asked about …": every sample scores 1.
    writeFileSync(
      chatty,
      `${['a gradient', 'a colour']
        .map((x, i) =>
          JSON.stringify({
            id: `q${i}`,
            messages: [{ role: 'user', content: `Describe ${x}.` }],
            reference: 'You asked about',
          }),
        )
        .join('\n')}\n`,
    );
    const r = await run([
      'reward',
      'test',
      '--model',
      'agent',
      '--tasks',
      chatty,
      '--reward',
      'contains',
      '-K',
      '3',
    ]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('--reward contains: 2 tasks, 6 samples, 6 scored\n');
    expect(r.stdout).toMatch(/^ {2}1 {2}6 {2}█+$/m);
    expect(r.stdout).toContain('Groups that do not vary: 2 of 2');
    expect(r.stdout).toMatch(/^ {2}q0 {2}3 × 1$/m);
    expect(r.stdout).toMatch(/^ {2}q1 {2}3 × 1$/m);
    expect(r.stdout).toContain('Failures: none');
    expect(r.stdout).toMatch(/Time per reward call \(6 calls\): median \S+ ms, p95 \S+ ms, max \S+ ms/);
  });

  it('offline on given replies with --reward-cmd: nothing sent, no key needed', async () => {
    const score = rewardScript(
      'score.js',
      `  if (trajectory.messages_and_choices.at(-1).message.content !== reply) process.exit(9);
  console.log(JSON.stringify({ reward: reply.trim() === reference ? 1 : 0, metrics: { length: reply.length } }));`,
    );
    const replies = writeReplies([
      { task_id: 'add', replies: ['42', '42'] },
      { task_id: 'mul', reply: '42' },
      { task_id: 'mul', reply: '41' },
    ]);
    const r = await runCli(
      ['reward', 'test', '--tasks', tasks, '--replies', replies, '--reward-cmd', score],
      {
        env: offlineEnv(),
      },
    );
    expect([r.code, r.stderr]).toEqual([
      0,
      `Scoring 4 replies of 2 tasks with --reward-cmd ${score} (1 task of ${tasks} with no reply: not tested)\n`,
    ]);
    const lines = r.stdout.split('\n');
    expect(lines.slice(0, 8)).toEqual([
      `--reward-cmd ${score}: 2 tasks, 4 samples, 4 scored`,
      '',
      'Rewards (4)',
      '  mean 0.75  std 0.433  min 0  max 1',
      '  p10 0.3  p25 0.75  median 1  p75 1  p90 1',
      '  0  1  ██████████',
      '  1  3  ██████████████████████████████',
      '',
    ]);
    expect(r.stdout).toContain(
      'Groups that do not vary: 1 of 2 (every sample got the same reward: nothing for RL to learn from)\n  add  2 × 1\n',
    );
    expect(r.stdout).toMatch(/Time per reward call \(4 calls\): median \S+ m?s, p95 \S+ m?s, max \S+ m?s\n$/);
    expect(await emu.requests()).toEqual([]);
  });

  it('a failing reward command: exit 1, the report lists each failure with its reason', async () => {
    const score = rewardScript(
      'flaky.js',
      `  if (reply === 'boom') { console.error('cannot parse ' + task_id); process.exit(3); }
  if (reply === 'garbage') { console.log('looks fine'); return; }
  console.log(reply === reference ? 1 : 0);`,
    );
    const replies = writeReplies([
      { task_id: 'add', replies: ['42', 'boom', '7'] },
      { task_id: 'sub', replies: ['garbage'] },
    ]);
    const r = await runCli(
      ['reward', 'test', '--tasks', tasks, '--replies', replies, '--reward-cmd', score],
      {
        env: offlineEnv(),
      },
    );
    expect(r.code).toBe(1);
    expect(r.stdout).toContain(
      [
        'Failures (2)',
        '  add sample 1: reward: exit 3: cannot parse add',
        '  sub sample 0: reward: printed "looks fine", not a number or {"reward": …}',
      ].join('\n'),
    );
    expect(r.stderr).toMatch(/error: 2 of 4 samples failed \(listed above\)\n$/);
    // --json: the same, as one document, and the same exit status.
    const json = await runCli(
      ['reward', 'test', '--tasks', tasks, '--replies', replies, '--reward-cmd', score, '--json'],
      { env: offlineEnv() },
    );
    expect(json.code).toBe(1);
    const report = JSON.parse(json.stdout);
    expect(Object.keys(report).sort()).toEqual(REPORT_KEYS);
    expect(report).toMatchObject({
      mode: 'replies',
      tasks: 2,
      samples: 4,
      scored: 2,
      failed: 2,
      too_small_groups: 1,
      constant_groups: [],
      failures: [
        { task_id: 'add', sample: 1, reason: 'reward: exit 3: cannot parse add' },
        { task_id: 'sub', sample: 0, reason: expect.stringContaining('reward: printed "looks fine"') },
      ],
      rewards: {
        count: 2,
        min: 0,
        max: 1,
        histogram: [
          { from: 0, to: 0, count: 1 },
          { from: 1, to: 1, count: 1 },
        ],
      },
    });
    expect(report.timing.calls).toBe(4);
    expect(json.stderr).toMatch(/error: 2 of 4 samples failed \(under "failures"\)/);
  });

  it('a bad replies file: exit 2, every problem at its file:line, nothing scored', async () => {
    const marker = join(t.dir, 'ran');
    const score = rewardScript(
      'marker.js',
      `  require('node:fs').writeFileSync(${JSON.stringify(marker)}, 'x'); console.log(1);`,
    );
    const bad = join(t.dir, 'bad.jsonl');
    writeFileSync(
      bad,
      [
        '{"task_id": "add", "reply": "42"}',
        '{"task_id": "nope", "reply": "42"}',
        '{"task_id": "add"}',
        '{"task_id": "mul", "replies": ["1", 2]}',
        '{not json',
        '',
      ].join('\n'),
    );
    const r = await runCli(['reward', 'test', '--tasks', tasks, '--replies', bad, '--reward-cmd', score], {
      env: offlineEnv(),
    });
    expect(r.code).toBe(2);
    expect(r.stderr.split('\n').slice(0, 4)).toEqual([
      `${bad}:2: task_id: no task "nope" in the tasks file`,
      `${bad}:3: (top level): give "reply" (one reply) or "replies" (a list of them)`,
      `${bad}:4: replies[1]: Input should be a valid string, not the number 2`,
      expect.stringMatching(new RegExp(`^${bad.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:5: invalid JSON`)),
    ]);
    expect(r.stderr).toContain(`error: ${bad}: 4 problems in 5 lines; nothing was scored`);
    expect(r.stdout).toBe('');
    expect(existsSync(marker)).toBe(false);
  });

  it('refuses flags that do not go together, before anything runs', async () => {
    const replies = writeReplies([{ task_id: 'add', reply: '42' }]);
    const both = await run([
      'reward',
      'test',
      '--tasks',
      tasks,
      '--replies',
      replies,
      '--model',
      'agent',
      '--reward',
      'exact',
    ]);
    expect([both.code, both.stderr]).toEqual([
      2,
      'error: --model samples fresh replies, --replies scores given ones: give one, not both\n',
    ]);
    const neither = await run(['reward', 'test', '--tasks', tasks, '--reward', 'exact']);
    expect(neither.code).toBe(2);
    expect(neither.stderr).toContain('give --model MODEL');
    const sampling = await run([
      'reward',
      'test',
      '--tasks',
      tasks,
      '--replies',
      replies,
      '--reward',
      'exact',
      '-K',
      '2',
      '--temperature',
      '0.5',
    ]);
    expect([sampling.code, sampling.stderr]).toEqual([
      2,
      'error: -K/--group-size, --temperature: about sampling, and --replies scores the replies given: leave them out\n',
    ]);
    const noReward = await run(['reward', 'test', '--tasks', tasks, '--replies', replies]);
    expect(noReward.code).toBe(2);
    expect(noReward.stderr).toContain('a reward is needed');
    expect(await emu.requests({ method: 'POST', path: CHAT })).toEqual([]);
  });
});
