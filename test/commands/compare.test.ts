// aip compare: run directories and eval results from files, models' checkpoints from the emulator.

import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { useEmulator } from '../helpers/emulator.js';
import { tempDir } from '../helpers/temp.js';

const { emu, run } = useEmulator();
let dir: string;
let runDir: string;
let evalFile: string;

function writeRun(path: string, iterations: unknown[]): void {
  mkdirSync(path, { recursive: true });
  writeFileSync(join(path, 'run.json'), JSON.stringify({ version: 1, model: { name: 'agent' }, iterations }));
}

beforeAll(() => {
  dir = tempDir('aip-compare-');
  runDir = join(dir, 'run');
  writeRun(runDir, [
    {
      iteration: 1,
      checkpoint_step: 0,
      groups_file: 'iteration-1/groups.jsonl',
      rollouts: { mean_reward: 0.2 },
    },
    {
      iteration: 2,
      checkpoint_step: 1,
      groups_file: 'iteration-2/groups.jsonl',
      rollouts: { mean_reward: 0.5 },
    },
    { iteration: 3, checkpoint_step: 2, groups_file: 'iteration-3/groups.jsonl' },
  ]);
  mkdirSync(join(runDir, 'iteration-3'));
  // Iteration 3 still sampling: one whole group, and a line a stop cut short.
  writeFileSync(
    join(runDir, 'iteration-3', 'groups.jsonl'),
    '{"trajectories":[{"reward":0.6},{"reward":1}]}\n{"traj',
  );
  evalFile = join(dir, 'eval.json');
  writeFileSync(
    evalFile,
    JSON.stringify({
      seed: 0,
      pass_threshold: 1,
      checkpoints: [0, 2].map((step, i) => ({
        model: `agent:step${step}`,
        uri: `wandb-artifact:///local/demo/agent:step${step}`,
        samples: 4,
        mean: 0.1 + i * 0.5,
        std: 0.1,
        pass_rate: 0.5,
        failed: 0,
      })),
    }),
  );
});

describe('aip compare on files', () => {
  it('prints a row per series (TSV when piped), and no chart', async () => {
    const r = await run(['compare', runDir, evalFile]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(
      `${runDir}\trun\t3\t0.200\t0.800\t0.800\t+0.600\n${evalFile}\teval\t2\t0.100\t0.600\t0.600\t+0.500\n`,
    );
    expect(r.stderr).toMatch(/iteration 3 still sampling/);
  });

  it('draws the overlay on a terminal, a glyph and a legend line per series', async () => {
    const r = await run(['compare', runDir, evalFile], { env: { NO_COLOR: '1' }, stdoutTTY: true });
    expect(r.code).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines).toContain('reward by step');
    expect(lines.at(-2)).toMatch(/^ +\* .*run$/);
    expect(lines.at(-1)).toMatch(/^ +\+ .*eval\.json$/);
    const noPlot = await run(['compare', runDir, '--no-plot'], { env: { NO_COLOR: '1' }, stdoutTTY: true });
    expect(noPlot.stdout).not.toContain('by step');
  });

  it('prints the series as one JSON document', async () => {
    const r = await run(['compare', runDir, evalFile, '--json']);
    const doc = JSON.parse(r.stdout);
    expect(doc.metric).toBe('reward');
    expect(doc.series.map((s: { kind: string }) => s.kind)).toEqual(['run', 'eval']);
    expect(doc.series[0].points.map((p: { step: number; value: number }) => [p.step, p.value])).toEqual([
      [0, 0.2],
      [1, 0.5],
      [2, 0.8],
    ]);
    expect(doc.series[1].points.map((p: { label: string }) => p.label)).toEqual([
      'agent:step0',
      'agent:step2',
    ]);
  });

  it('writes an HTML or a Markdown report', async () => {
    const html = join(dir, 'r.html');
    const md = join(dir, 'r.md');
    expect(
      (await run(['compare', runDir, evalFile, '--report', html, '--title', 'A <b>test</b>'])).code,
    ).toBe(0);
    expect(readFileSync(html, 'utf8')).toContain('<h1>A &lt;b&gt;test&lt;/b&gt;</h1>');
    expect((await run(['compare', runDir, evalFile, '--report', md])).code).toBe(0);
    expect(readFileSync(md, 'utf8')).toContain('```mermaid');
    const bad = await run(['compare', runDir, '--report', join(dir, 'r.txt')]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/end it in \.html .* or \.md/);
  });

  it('refuses bad files with file: problem (exit 2), before any request', async () => {
    const cases: Array<[string, string, RegExp]> = [
      ['not-json.json', '{"seed":', /not-json\.json: not valid JSON/],
      ['no-checkpoints.json', '{"seed":0}', /no-checkpoints\.json: checkpoints: missing/],
      [
        'bad-mean.json',
        '{"seed":0,"pass_threshold":1,"checkpoints":[{"model":"a:step1","uri":"u","samples":1,"mean":"x","std":null,"pass_rate":null,"failed":0}]}',
        /bad-mean\.json: checkpoints\[0\]\.mean: expected a number/,
      ],
    ];
    for (const [name, content, message] of cases) {
      writeFileSync(join(dir, name), content);
      const r = await run(['compare', join(dir, name), 'model:agent']);
      expect([name, r.code]).toEqual([name, 2]);
      expect(r.stderr).toMatch(message);
    }
    const escaping = join(dir, 'escaping');
    writeRun(escaping, [{ iteration: 1, checkpoint_step: 0, groups_file: '../../etc/passwd' }]);
    const r = await run(['compare', escaping]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/groups_file "..\/..\/etc\/passwd" is not inside the run directory/);
    const proto = join(dir, 'proto');
    writeRun(proto, [{ iteration: 1, checkpoint_step: '__proto__', groups_file: 'x' }]);
    expect((await run(['compare', proto])).stderr).toMatch(/checkpoint_step: expected a whole number/);
    const nothing = await run(['compare', join(dir, 'nowhere')]);
    expect(nothing.code).toBe(2);
    expect(nothing.stderr).toMatch(
      /nowhere: no such file or directory, nor a model created from this machine/,
    );
    expect((await run(['compare', runDir, '--metric', 'loss'])).stderr).toMatch(
      /mean reward of its samples only/,
    );
    // A FIFO is refused at once, not waited on for a writer that never comes.
    const fifo = join(dir, 'eval.fifo');
    execFileSync('mkfifo', [fifo]);
    const piped = await run(['compare', fifo]);
    expect([piped.code, piped.stderr]).toEqual([2, expect.stringMatching(/eval\.fifo: not a regular file/)]);
    expect(await emu.requests({ method: 'GET' })).toEqual([]);
  });
});

describe('aip compare on models', () => {
  it("overlays a model's checkpoint metric with a run", async () => {
    const created = await run('models create --name agent --base-model OpenPipe/Qwen3-14B-Instruct -q');
    const id = created.stdout.trim();
    expect((await emu.control('POST', `/models/${id}/checkpoints`, { count: 5 })).status).toBe(200);
    const r = await run(['compare', 'model:agent', runDir, '--json']);
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.stdout);
    expect(doc.series[0]).toMatchObject({ kind: 'model', label: 'model:agent' });
    expect(doc.series[0].points.map((p: { step: number }) => p.step)).toEqual([1, 2, 3, 4, 5]);
    // A remembered name without model: works too; a metric of its checkpoints other than reward.
    const loss = await run(['compare', 'agent', '--metric', 'loss', '--json']);
    expect(JSON.parse(loss.stdout).series[0].points).toHaveLength(5);
    const missing = await run(['compare', 'model:agent', '--metric', 'accuracy']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/has the metric "accuracy"; metrics: .*loss.*reward/);
    const gone = await run(['compare', 'model:99999999-9999-9999-9999-999999999999']);
    expect(gone.code).toBe(3);
  });
});
