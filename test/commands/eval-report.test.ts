// eval --plot and --report (issue 31): the mean reward and pass rate over the steps at the terminal,
// and a report file (HTML or Markdown) with the table, the charts, the tasks that changed and their
// samples; the report's name checked before anything is sent.

import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { useEmulator } from '../helpers/emulator.js';
import { writeArithmeticTasks } from '../helpers/tasks.js';

const t = useEmulator();
const { emu, run } = t;

let tasks: string;
beforeEach(async () => {
  // A model trained twice (checkpoints at steps 0, 1 and 2): later steps answer the sums better.
  await run('models create --name agent --base-model OpenPipe/Qwen3-14B-Instruct -q');
  const groups = join(t.dir, 'groups.jsonl');
  const { writeFileSync } = await import('node:fs');
  writeFileSync(
    groups,
    `${JSON.stringify({ trajectories: [{ messages_and_choices: [{ role: 'user', content: 'x' }], reward: 1 }] })}\n`,
  );
  for (let i = 0; i < 2; i++) {
    const r = await run(['jobs', 'create', 'rl', '--model', 'agent', '--file', groups, '--wait', '-q']);
    expect([r.code, r.stderr]).toEqual([0, expect.any(String)]);
  }
  tasks = writeArithmeticTasks(join(t.dir, 'tasks.jsonl'), 6);
});

const evalRange = (...more: string[]) => [
  'eval',
  '--model',
  'agent:step*',
  '--tasks',
  tasks,
  '--reward',
  'exact',
  '-K',
  '2',
  ...more,
];

describe('eval --plot', () => {
  it('draws mean reward and pass rate over the steps, on stdout after the table', async () => {
    const r = await run(evalRange('--plot'));
    expect([r.code, r.stderr]).toEqual([0, expect.not.stringContaining('internal')]);
    expect(r.stdout).toMatch(/mean reward by step/);
    expect(r.stdout).toMatch(/pass rate by step/);
  });

  it('does not combine with --json', async () => {
    const r = await run(evalRange('--plot', '--json'));
    expect([r.code, r.stderr]).toEqual([2, expect.stringMatching(/--plot draws a chart/)]);
    expect(await emu.requests({ path: '/training/v1/chat/completions' })).toEqual([]);
  });
});

describe('eval --report', () => {
  it('writes a self-contained HTML page with the checkpoints, the chart and the changed tasks', async () => {
    const file = join(t.dir, 'eval.html');
    const r = await run(evalRange('--report', file));
    expect([r.code, r.stderr]).toEqual([0, expect.stringMatching(/Wrote the report to /)]);
    const html = readFileSync(file, 'utf8');
    for (const step of ['agent:step0', 'agent:step1', 'agent:step2']) expect(html).toContain(step);
    expect(html).toContain('<svg');
    // Nothing the page would fetch: no external script, style, image or font.
    expect(html).not.toMatch(/<(script|link|img)[^>]+(src|href)=["']?https?:/i);
  });

  it('writes Markdown for a pull request: the table, the tasks that changed and their samples', async () => {
    const file = join(t.dir, 'eval.md');
    const r = await run(evalRange('--report', file));
    expect(r.code).toBe(0);
    const md = readFileSync(file, 'utf8');
    expect(md).toMatch(/\| *checkpoint *\|/);
    expect(md.length).toBeLessThanOrEqual(65_536);
    // The tasks whose reward changed from step 0 to step 2 are there, each with its samples.
    const json = await run(evalRange('--diff', '--json'));
    const changed = (JSON.parse(json.stdout).tasks as Array<{ id: string }>).map((c) => c.id);
    expect(changed.length).toBeGreaterThan(0);
    for (const id of changed) expect(md).toContain(id);
    expect(md).toContain('<details>');
  });

  it('a name of another kind is refused before anything is sent', async () => {
    const file = join(t.dir, 'eval.pdf');
    const r = await run(evalRange('--report', file));
    expect([r.code, r.stderr]).toEqual([2, expect.stringMatching(/end it in \.html .* or \.md/)]);
    expect(existsSync(file)).toBe(false);
    expect(await emu.requests({ path: '/training/v1/chat/completions' })).toEqual([]);
  });
});

describe('eval --save', () => {
  it('keeps the document --json prints in a file, which aip compare overlays', async () => {
    const saved = join(t.dir, 'eval.json');
    const r = await run(evalRange('--save', saved));
    expect([r.code, r.stdout]).toEqual([0, expect.stringMatching(/agent:step2/)]);
    const json = await run(evalRange('--json'));
    expect(JSON.parse(readFileSync(saved, 'utf8'))).toEqual(JSON.parse(json.stdout));
    const compared = await run(['compare', saved, '--json']);
    expect(compared.code).toBe(0);
    const [series] = JSON.parse(compared.stdout).series;
    expect(series.points.map((p: { step: number }) => p.step)).toEqual([0, 1, 2]);
  });

  it('a file that cannot be written is exit 1, the results printed all the same', async () => {
    const r = await run(evalRange('--save', join(t.dir, 'no-such-dir', 'eval.json')));
    expect([r.code, r.stderr]).toEqual([1, expect.stringMatching(/the results were not saved/)]);
    expect(r.stdout).toMatch(/agent:step2/);
  });
});
