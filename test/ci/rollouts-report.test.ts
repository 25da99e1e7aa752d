// aip rollouts in a simulated GitHub Actions step (runner.ts), on the emulator: outputs (groups written,
// trajectories, failed ones, mean reward) read back by the runner's rules, and a summary with why
// samples failed (the reward command's words as text, the most frequent first, a few kinds at most);
// written also when every trajectory failed (exit 1), and nothing off a runner.

import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { markdownText } from '../../src/ci/markdown.js';
import { useEmulator } from '../helpers/emulator.js';
import { readJsonLines } from '../helpers/json-lines.js';
import { type Runner, simulatedRunner, stepOutputs, stepSummary } from './runner.js';

const t = useEmulator();
const { run } = t;

let runner: Runner;
beforeEach(async () => {
  expect((await run('models create --name agent --base-model OpenPipe/Qwen3-14B-Instruct -q')).code).toBe(0);
  runner = simulatedRunner();
});

function tasksFile(ids: readonly string[]): string {
  const file = join(t.dir, 'tasks.jsonl');
  writeFileSync(
    file,
    ids.map((id) => JSON.stringify({ id, messages: [{ role: 'user', content: `About ${id}?` }] })).join('\n'),
  );
  return file;
}

const outputs = () => stepOutputs(runner);
const summary = () => stepSummary(runner);
type Group = { exceptions?: Array<{ message: string }>; metadata: { rollout_model: string } };
const groupsOf = (file: string) => readJsonLines<Group>(file);
const rollouts = (tasks: string, out: string, rewardCmd: string, ...extra: string[]) => [
  'rollouts',
  '--model',
  'agent',
  '--tasks',
  tasks,
  '--reward-cmd',
  rewardCmd,
  '-o',
  out,
  '--seed',
  '7',
  ...extra,
];

describe('rollouts on GitHub Actions', () => {
  it('groups written, trajectories, failures and mean reward; why samples failed, as text', async () => {
    const tasks = tasksFile(['a', 'b', 'bad', 'c']);
    const out = join(t.dir, 'groups.jsonl');
    const cmd = 'if [ "$AIP_TASK_ID" = bad ]; then echo "no <b>way</b> | out" >&2; exit 3; fi; echo 0.5';
    const r = await run(rollouts(tasks, out, cmd, '-K', '2'), { env: runner.env });
    expect(r.code, r.stderr).toBe(0);
    expect(outputs()).toEqual({
      'groups-written': '4',
      trajectories: '6',
      'failed-trajectories': '2',
      'mean-reward': '0.5',
    });

    const groups = groupsOf(out);
    const reason = groups.flatMap((g) => g.exceptions ?? [])[0]!.message.replace(/^sample \d+: /, '');
    expect(reason).toContain('<b>way</b>');
    const text = summary();
    expect(text).toMatch(/^### Rollouts: 4 groups written\n/);
    expect(text).toContain(`| **Model** | ${markdownText(groups[0]!.metadata.rollout_model)} |\n`);
    expect(text).toContain(`| **Groups** | 4 written to ${markdownText(out)}, of 4 tasks |\n`);
    expect(text).toContain('| **Trajectories** | 6 scored, 2 failed |\n');
    expect(text).toContain('| **Mean reward** | 0.500 |\n');
    expect(text).toContain('| **Seed** | 7 |\n');
    expect(text).toContain(
      `#### Why samples failed\n\n| reason | samples | a task |\n| --- | --- | --- |\n| ${markdownText(reason)} | 2 | bad |\n`,
    );
    expect(text).not.toContain('<b>');
  });

  it('every trajectory failed (exit 1): written all the same, the mean reward empty', async () => {
    const tasks = tasksFile(['a', 'b']);
    const r = await run(rollouts(tasks, join(t.dir, 'groups.jsonl'), 'exit 3', '-K', '1'), {
      env: runner.env,
    });
    expect(r.code).toBe(1);
    expect(outputs()).toEqual({
      'groups-written': '2',
      trajectories: '0',
      'failed-trajectories': '2',
      'mean-reward': '',
    });
    expect(summary()).toMatch(/^### Rollouts: every trajectory failed\n/);
  });

  it('many reasons: the ten most frequent, and how many failures are left out', async () => {
    const ids = Array.from({ length: 14 }, (_, i) => `t${i}`);
    const tasks = tasksFile(ids);
    // t0 and t1 fail alike; each other task for a reason of its own.
    const cmd =
      'case "$AIP_TASK_ID" in t0|t1) echo "common" >&2;; *) echo "only $AIP_TASK_ID" >&2;; esac; exit 3';
    const r = await run(rollouts(tasks, join(t.dir, 'groups.jsonl'), cmd, '-K', '1'), { env: runner.env });
    expect(r.code).toBe(1);
    const rows = summary()
      .split('#### Why samples failed\n')[1]!
      .split('\n')
      .filter((line) => line.startsWith('| ') && !line.startsWith('| reason') && !line.startsWith('| ---'));
    expect(rows).toHaveLength(10);
    expect(rows[0]).toMatch(/common.* \| 2 \| t[01] \|$/);
    expect(summary()).toContain(
      "… and 3 more failed samples, for other reasons (each group's exceptions say why)\n",
    );
  });

  it('writes nothing off a runner', async () => {
    const tasks = tasksFile(['a']);
    const { GITHUB_ACTIONS: _, ...off } = runner.env;
    const r = await run(rollouts(tasks, join(t.dir, 'groups.jsonl'), 'echo 1', '-K', '1'), { env: off });
    expect(r.code).toBe(0);
    expect([readFileSync(runner.outputFile, 'utf8'), summary()]).toEqual(['', '']);
  });
});
