// aip eval in a simulated GitHub Actions step (runner.ts), on the emulator, whose later checkpoints
// answer arithmetic right more often (test/commands/eval.test.ts): the gate's outputs read back by the
// runner's rules (the last checkpoint's mean reward and pass rate, passed, every checkpoint as JSON,
// the diff's counts), and a summary (a row per checkpoint, the verdict against --fail-under, the tasks
// that changed, capped, outside text escaped), written whether the gate passes or fails, with the exit
// code unchanged; nothing off a runner.

import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { dollars } from '../../src/output/dollars.js';
import { useEmulator } from '../helpers/emulator.js';
import { finishedJob } from '../helpers/jobs.js';
import { runAip } from '../helpers/spawn.js';
import { type Runner, simulatedRunner, stepOutputs, stepSummary } from './runner.js';

const t = useEmulator();
const { run } = t;
const EARLY = 'agent:step1';
const LATE = 'agent:step4';

interface Checkpoint {
  model: string;
  uri: string;
  samples: number;
  mean: number | null;
  std: number | null;
  pass_rate: number | null;
  failed: number;
  spent: { requests: number; prompt_tokens: number; completion_tokens: number; cost: number | null };
}
interface EvalDocument {
  checkpoints: Checkpoint[];
  tasks?: Array<{ id: string; means: number[]; change: number }>;
  changes?: { improved: number; worse: number; unchanged: number; unscored: number };
}

let runner: Runner;
beforeEach(async () => {
  // Checkpoints at steps 1 to 4: right 40% of the time at step 1, 95% at step 4.
  await finishedJob(t, 4);
  runner = simulatedRunner();
});

/** `count` arithmetic tasks, each with the id `idOf(i)`. */
function tasksFile(count: number, idOf = (i: number) => `sum-${i}`): string {
  const file = join(t.dir, `tasks-${count}.jsonl`);
  const lines = Array.from({ length: count }, (_, i) =>
    JSON.stringify({
      id: idOf(i),
      messages: [
        { role: 'user', content: `What is ${11 + i * 7} + ${5 + i * 3}? Reply with the number only.` },
      ],
      reference: String(16 + i * 10),
    }),
  );
  writeFileSync(file, `${lines.join('\n')}\n`);
  return file;
}

const outputs = () => stepOutputs(runner);
const summary = () => stepSummary(runner);
const evalArgs = (tasks: string, ...extra: string[]) => [
  'eval',
  '--model',
  EARLY,
  '--model',
  LATE,
  '--tasks',
  tasks,
  '--reward',
  'exact',
  ...extra,
];
/** The results as --json gives them, off the runner: what the outputs and the summary must say. */
async function results(tasks: string, ...extra: string[]): Promise<EvalDocument> {
  const r = await run([...evalArgs(tasks, ...extra), '--json']);
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout);
}
const row = (c: Checkpoint) =>
  `| ${c.model} | ${c.samples} | ${c.mean!.toFixed(3)} | ${c.std!.toFixed(3)} | ${(c.pass_rate! * 100).toFixed(1)}% | ${c.failed} | ${c.spent.prompt_tokens + c.spent.completion_tokens} | ${c.spent.cost === null ? 'unknown' : dollars(c.spent.cost)} |`;

describe('eval on GitHub Actions', () => {
  it('under --fail-under (the built CLI, exit 1): outputs for the gate, and a summary that says why', async () => {
    const tasks = tasksFile(24);
    const doc = await results(tasks, '--diff');
    const [early, late] = doc.checkpoints as [Checkpoint, Checkpoint];
    const bar = late.mean! + 0.01;
    const r = await runAip([...evalArgs(tasks, '--diff', '--fail-under', String(bar))], {
      env: { ...t.env, ...runner.env },
    });
    expect(r.code, r.stderr).toBe(1);
    const failure = `${LATE}: mean reward ${late.mean!.toFixed(3)} is under --fail-under ${bar}`;
    expect(r.stderr).toContain(failure);
    expect(outputs()).toEqual({
      'mean-reward': String(late.mean),
      'pass-rate': String(late.pass_rate),
      passed: 'false',
      results: JSON.stringify(doc.checkpoints),
      'tasks-improved': String(doc.changes!.improved),
      'tasks-worse': '0',
    });
    // As a workflow reads it: fromJSON(steps.eval.outputs.results)[0].mean.
    expect(JSON.parse(outputs().results!)[0].mean).toBe(early.mean);

    const text = summary();
    expect(text).toMatch(
      new RegExp(`^### Eval failed\n\n${failure.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\n`),
    );
    expect(text).toContain(
      '24 tasks, 1 sample each, seed 0, pass threshold 1: the same requests for every checkpoint\n',
    );
    expect(text).toContain(
      `| checkpoint | samples | mean reward | std | pass rate | failed | tokens | cost |\n| --- | --- | --- | --- | --- | --- | --- | --- |\n${row(early)}\n${row(late)}\n`,
    );
    expect(text).toContain(
      `**--fail-under ${bar}**: ${LATE} has a mean reward of ${late.mean!.toFixed(3)}, under it: failed\n`,
    );
    const { improved, unchanged } = doc.changes!;
    expect(text).toContain(
      `#### Tasks that changed\n\n${EARLY} → ${LATE}: ${improved} improved, 0 worse, ${unchanged} unchanged\n`,
    );
    expect(text).toContain(`| task | ${EARLY} | ${LATE} | change |\n`);
    for (const task of doc.tasks!) expect(text).toContain(`| ${task.id} | 0.000 | 1.000 | +1.000 |\n`);
  });

  it('met: passed, the same outputs, the verdict; without --diff no diff outputs or section', async () => {
    const tasks = tasksFile(24);
    const late = (await results(tasks)).checkpoints[1]!;
    const r = await run(evalArgs(tasks, '--fail-under', String(late.mean)), { env: runner.env });
    expect(r.code, r.stderr).toBe(0);
    const written = outputs();
    expect(written).toMatchObject({ 'mean-reward': String(late.mean), passed: 'true' });
    expect(Object.keys(written).sort()).toEqual(['mean-reward', 'pass-rate', 'passed', 'results']);
    const text = summary();
    expect(text).toMatch(/^### Eval passed\n/);
    expect(text).toContain(`has a mean reward of ${late.mean!.toFixed(3)}, not under it: passed\n`);
    expect(text).not.toContain('#### Tasks that changed');
  });

  it('a checkpoint with no scored sample: passed false, its mean empty, exit 1 as before', async () => {
    const tasks = tasksFile(3);
    const r = await run(
      ['eval', '--model', LATE, '--tasks', tasks, '--reward-cmd', 'echo "<b>no</b> reward" >&2; exit 3'],
      { env: runner.env },
    );
    expect(r.code).toBe(1);
    expect(outputs()).toMatchObject({ 'mean-reward': '', 'pass-rate': '', passed: 'false' });
    expect(JSON.parse(outputs().results!)).toEqual([
      {
        model: LATE,
        uri: expect.any(String),
        samples: 3,
        mean: null,
        std: null,
        pass_rate: null,
        failed: 3,
        spent: expect.objectContaining({ requests: 3 }),
      },
    ]);
    const text = summary();
    expect(text).toMatch(/^### Eval failed\n\nno sample of agent:step4 was scored: /);
    // The reward command's words, as text: no markup gets through.
    expect(text).not.toContain('<b>');
    expect(text).toContain(`| ${LATE} | 3 | – | – | – | 3 |`);
  });

  it('a large diff: at most 50 task rows, and how many were left out; task ids escaped and cut', async () => {
    const long = 'x'.repeat(300);
    const tasks = tasksFile(120, (i) => (i % 2 ? `<img src=x>|**t${i}**` : `${long}${i}`));
    const doc = await results(tasks, '--diff');
    const changed = doc.tasks!;
    expect(changed.length).toBeGreaterThan(50);
    expect((await run(evalArgs(tasks, '--diff'), { env: runner.env })).code).toBe(0);
    const text = summary();
    const rows = text.split('\n').filter((line) => / \| [-+]\d\.\d{3} \|$/.test(line));
    expect(rows).toHaveLength(50);
    expect(text).toContain(
      `… and ${changed.length - 50} more tasks that changed (\`--json\` lists every one)`,
    );
    expect(text).not.toContain('<img');
    expect(text).not.toContain(long);
    const shown = changed.slice(0, 50).map((task) => task.id);
    for (const [i, id] of shown.entries()) {
      const cell = id.startsWith('<')
        ? id.replace('<', '&lt;').replace('>', '&gt;').replace('|', '\\|').replace(/\*/g, '\\*')
        : `${'x'.repeat(119)}…`;
      expect(rows[i]!.startsWith(`| ${cell} | `), `${rows[i]} for ${id}`).toBe(true);
    }
  });

  it('writes nothing off a runner, nor with --ci none', async () => {
    const tasks = tasksFile(4);
    const { GITHUB_ACTIONS: _, ...off } = runner.env;
    expect((await run(evalArgs(tasks, '--fail-under', '2'), { env: off })).code).toBe(1);
    expect((await run(['--ci', 'none', ...evalArgs(tasks)], { env: runner.env })).code).toBe(0);
    expect([readFileSync(runner.outputFile, 'utf8'), summary()]).toEqual(['', '']);
  });
});
