// The action as a runner runs it: checked out outside the workspace, started as a node24 action with
// INPUT_* variables, against the emulator. What it must do from there without npm or setup-node:
// split args as a shell would, run in working-directory, write outputs, a summary and annotations,
// and put aip on PATH once per job.

import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { EMULATOR_DEFAULT_KEY, emulatorUrls } from '../../src/settings/local-platform.js';
import { parseOutputs, workflowCommands } from '../ci/runner.js';
import { useEmulator } from '../helpers/emulator.js';
import { freePort } from '../helpers/ports.js';
import { collect } from '../helpers/spawn.js';
import {
  actionMetadata,
  addedPaths,
  inputVariable,
  type RunnerLayout,
  runnerLayout,
  runStep,
} from './runner-layout.js';

const t = useEmulator({ fresh: 'file' });
let layout: RunnerLayout;
/** The job the step with --wait made: a later run: step reads it. */
let jobId = '';

beforeAll(() => {
  layout = runnerLayout();
});

/**
 * The step's outputs, as the runner reads them; each one must be declared in action.yml, where a
 * workflow author looks them up.
 */
function outputs(): Record<string, string> {
  const written = Object.fromEntries(parseOutputs(readFileSync(layout.files.output, 'utf8')));
  const declared = Object.keys(actionMetadata(layout.action).outputs);
  expect(Object.keys(written).filter((name) => !declared.includes(name))).toEqual([]);
  return written;
}

describe('the action, checked out at a ref and started by a runner', () => {
  it('is a node24 action whose entry is in the checkout, with no npm install or node_modules', () => {
    const { runs } = actionMetadata(layout.action);
    expect(runs.using).toBe('node24');
    expect(existsSync(join(layout.action, runs.main!))).toBe(true);
    expect(existsSync(join(layout.action, 'node_modules'))).toBe(false);
    expect(existsSync(join(layout.action, 'dist'))).toBe(false);
  });

  it('names each input as the runner does', () => {
    expect(inputVariable('working-directory')).toBe('INPUT_WORKING-DIRECTORY');
    expect(inputVariable('a b')).toBe('INPUT_A_B');
  });

  it('checks data in working-directory, annotating the file by its workspace path, and puts aip on PATH', async () => {
    const data = join(layout.workspace, 'training', 'data');
    mkdirSync(data, { recursive: true });
    writeFileSync(join(data, 'my train.jsonl'), '{"messages": []}\n');
    const r = await runStep(layout, {
      with: { args: `jobs validate sft "data/my train.jsonl"`, 'working-directory': 'training' },
      env: t.env,
    });
    expect(r.code).toBe(2);
    const [annotation] = workflowCommands(r.stderr).filter((c) => c.command === 'error');
    expect(annotation?.properties).toMatchObject({ file: 'training/data/my train.jsonl', line: '1' });
    expect(addedPaths(layout)).toEqual([join(layout.temp, 'aip-bin')]);
  });

  it('trains with --wait: the outputs and the summary are the step’s, and a second use adds nothing to PATH', async () => {
    await t.run('models create --name agent --base-model OpenPipe/Qwen3-14B-Instruct -q');
    writeFileSync(
      join(layout.workspace, 'groups.jsonl'),
      '{"trajectories": [{"reward": 1}, {"reward": 0}]}\n',
    );
    const r = await runStep(layout, {
      with: { args: 'jobs create rl --model agent --file groups.jsonl --wait' },
      env: t.env,
    });
    expect(r.stderr).not.toMatch(/^::error/m);
    expect(r.code).toBe(0);
    const out = outputs();
    expect(out.state).toBe('succeeded');
    expect(out['job-id']).toMatch(/\S/);
    jobId = out['job-id']!;
    expect(out['model-id']).toMatch(/\S/);
    expect(readFileSync(layout.files.summary, 'utf8')).toContain(out['job-id']);
    expect(addedPaths(layout)).toHaveLength(1);
  });

  it('gates on eval: a failed gate fails the step, its outputs and summary written all the same', async () => {
    const tasks = Array.from({ length: 4 }, (_, i) =>
      JSON.stringify({
        id: `sum-${i}`,
        messages: [{ role: 'user', content: `What is ${i} + ${i}? Reply with the number only.` }],
        reference: String(2 * i),
      }),
    );
    writeFileSync(join(layout.workspace, 'tasks.jsonl'), `${tasks.join('\n')}\n`);
    const r = await runStep(layout, {
      with: { args: 'eval --model agent --tasks tasks.jsonl --reward exact --fail-under 1.01' },
      env: t.env,
    });
    expect(r.code).toBe(1);
    const out = outputs();
    expect(out.passed).toBe('false');
    expect(JSON.parse(out.results!)).toEqual([expect.objectContaining({ samples: expect.any(Number) })]);
    expect(readFileSync(layout.files.summary, 'utf8')).toMatch(/1\.01/);
  });

  it('leaves aip on PATH for the job’s later run: steps', async () => {
    // Not spawnSync: the emulator answers from this process.
    const path = [...addedPaths(layout).reverse(), process.env.PATH ?? ''].join(delimiter);
    const r = await collect(
      spawn('sh', ['-c', `aip --version && aip jobs get ${jobId} --json`], {
        env: { ...t.env, PATH: path, HOME: join(layout.root, 'home'), AIP_KEYRING: 'off' },
      }),
    );
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const [version, ...json] = r.stdout.split('\n');
    expect(version).toBe(JSON.parse(readFileSync(join(layout.action, 'package.json'), 'utf8')).version);
    expect(JSON.parse(json.join('\n'))).toMatchObject({ id: jobId });
  });

  it('leaves aip mcp out of the bundle, and says where to get it', async () => {
    const path = [...addedPaths(layout).reverse(), process.env.PATH ?? ''].join(delimiter);
    const r = await collect(
      spawn('sh', ['-c', 'aip mcp </dev/null'], {
        env: { ...t.env, PATH: path, HOME: join(layout.root, 'home'), AIP_KEYRING: 'off' },
      }),
    );
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/aip mcp is not in the GitHub Action's bundle.*npx aip mcp/s);
    expect(readFileSync(join(layout.action, 'action', 'aip.js'), 'utf8')).not.toMatch(/modelcontextprotocol/);
  });

  it('passes quoted words as one: an apostrophe, \\" and a line break inside quotes', async () => {
    const r = await runStep(layout, {
      with: { args: `health --json --jq "\n  \\"it's \\" + \\"a \\\\\\"test\\\\\\"\\""` },
      env: t.env,
    });
    // The key's mask, and nothing else: no usage error.
    expect(r.stderr).toBe(`::add-mask::${t.emu.key}\n`);
    expect(r.stdout).toBe('it\'s a "test"\n');
    expect(r.code).toBe(0);
  });

  it('starts a detached emulator that outlives the step, from the bundle alone, and stops it', async () => {
    const port = await freePort();
    const urls = emulatorUrls(`http://127.0.0.1:${port}`);
    const env = {
      AIP_BASE_URL: urls.base,
      AIP_INFERENCE_URL: urls.inference,
      AIP_TRACE_URL: urls.trace,
      AIP_API_KEY: EMULATOR_DEFAULT_KEY,
    };
    const started = await runStep(layout, { with: { args: `emulator --detach --ephemeral --port ${port}` } });
    try {
      expect(started.stderr).not.toMatch(/error/);
      expect(started.code).toBe(0);
      const health = await runStep(layout, { with: { args: 'health --json' }, env });
      expect(health.code).toBe(0);
      expect(JSON.parse(health.stdout).map((c: { status: string }) => c.status)).toEqual([
        'ok',
        'reachable',
        'reachable',
      ]);
    } finally {
      const stopped = await runStep(layout, { with: { args: 'emulator stop' } });
      expect(stopped.code).toBe(0);
    }
  });

  it('refuses a working-directory that is not there: one annotation, exit 2, nothing sent', async () => {
    const before = (await t.emu.requests()).length;
    const r = await runStep(layout, {
      with: { args: 'health', 'working-directory': 'no/such/dir' },
      env: t.env,
    });
    expect(r.code).toBe(2);
    expect(workflowCommands(r.stderr)).toEqual([
      expect.objectContaining({
        command: 'error',
        data: 'working-directory: no/such/dir does not exist (it is relative to the workspace)',
      }),
    ]);
    expect(await t.emu.requests()).toHaveLength(before);
  });

  it('refuses args with an open quote: one annotation, exit 2, nothing sent', async () => {
    const before = (await t.emu.requests()).length;
    const r = await runStep(layout, { with: { args: "jobs validate sft it's.jsonl" }, env: t.env });
    expect(r.code).toBe(2);
    expect(workflowCommands(r.stderr)).toEqual([
      expect.objectContaining({
        command: 'error',
        properties: { title: 'aip' },
        data: expect.stringMatching(/^args: a quote is not closed/),
      }),
    ]);
    expect(r.stdout).toBe('');
    expect(await t.emu.requests()).toHaveLength(before);
  });
});
