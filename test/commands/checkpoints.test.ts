// aip checkpoints list / delete / prune against the emulator.

import { beforeEach, describe, expect, it } from 'vitest';
import type { Checkpoint } from '../../src/api/types.js';
import { parseSteps } from '../../src/checkpoints/steps.js';
import { planPrune } from '../../src/commands/checkpoints/prune.run.js';
import { UsageError } from '../../src/errors/errors.js';
import { main } from '../../src/main.js';
import { words } from '../helpers/cli.js';
import { useEmulator } from '../helpers/emulator.js';
import { fakeIO } from '../helpers/io.js';
import { waitFor } from '../helpers/wait.js';

const { emu, env, run } = useEmulator();
let id: string;
beforeEach(async () => {
  const r = await run('models create --name agent --base-model OpenPipe/Qwen3-14B-Instruct -q');
  id = r.stdout.trim();
});

/** Gives the model checkpoints for steps 1…count (step 0 exists from creation). */
async function seed(count: number, metrics?: Record<string, number>): Promise<void> {
  const r = await emu.control('POST', `/models/${id}/checkpoints`, { count, metrics });
  expect(r.status).toBe(200);
}

async function steps(): Promise<number[]> {
  const r = await run(['checkpoints', 'list', 'agent', '--all', '--json']);
  return (JSON.parse(r.stdout) as Array<{ step: number }>).map((c) => c.step);
}

describe('aip checkpoints list', () => {
  it('prints a STEP/ID/METRICS table on a terminal, with the cursor to go on', async () => {
    await seed(30);
    const r = await run(['checkpoints', 'list', 'agent', '--limit', '3'], {
      env: { NO_COLOR: '1' },
      stdoutTTY: true,
    });
    expect(r.code).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^STEP {2}ID {36}METRICS$/);
    expect(lines[1]).toMatch(/^0 {5}[0-9a-f-]{36}$/);
    expect(lines[2]).toMatch(
      /^1 {5}[0-9a-f-]{36} {2}grad_norm=[\d.]+ learning_rate=[\d.e-]+ loss=[\d.]+ reward=[\d.]+ reward_std_dev=[\d.]+$/,
    );
    expect(lines).toHaveLength(4);
    const page = await emu.requests({ path: `/training/v1/preview/models/${id}/checkpoints` });
    expect(page[0]?.query).toEqual({ limit: '3' });
    const lastId = lines[3]!.split(/\s+/)[1];
    expect(r.stderr).toBe(`More checkpoints: aip checkpoints list agent --after ${lastId} (or --all)\n`);
  });

  it('prints TSV with metrics as JSON when piped, the checkpoints as an array with --json, ids with -q', async () => {
    await seed(2, { reward: 0.5 });
    const piped = await run(['checkpoints', 'list', 'agent']);
    const rows = piped.stdout
      .trimEnd()
      .split('\n')
      .map((l) => l.split('\t'));
    expect(rows.map((r) => [r[0], r[2]])).toEqual([
      ['0', '{}'],
      ['1', '{"reward":0.5}'],
      ['2', '{"reward":0.5}'],
    ]);
    expect(piped.stderr).toBe('');
    const page = JSON.parse((await run(['checkpoints', 'list', 'agent', '--json'])).stdout);
    expect(page.map((c: { id: string }) => c.id)).toEqual(rows.map((r) => r[1]));
    const quiet = await run(['checkpoints', 'list', 'agent', '-q']);
    expect(quiet.stdout).toBe(`${rows.map((r) => r[1]).join('\n')}\n`);
  });

  it('--all follows has_more over 250 checkpoints and --json prints one array', async () => {
    await seed(250);
    const r = await run(['checkpoints', 'list', 'agent', '--all', '--json']);
    const all = JSON.parse(r.stdout) as Array<{ id: string; step: number }>;
    expect(all.map((c) => c.step)).toEqual(Array.from({ length: 251 }, (_, i) => i));
    const pages = await emu.requests({ path: `/training/v1/preview/models/${id}/checkpoints` });
    expect(pages.map((p) => p.query.limit)).toEqual(['100', '100', '100']);
    expect(pages[0]?.query.after).toBeUndefined();
    expect(pages[1]?.query.after).toBe(all[99]!.id);
    const small = await run(['checkpoints', 'list', 'agent', '--all', '--limit', '50', '-q']);
    expect(small.stdout.trim().split('\n')).toHaveLength(251);
  });

  it('pages with --after and --order', async () => {
    await seed(10);
    const first = JSON.parse(
      (await run(['checkpoints', 'list', 'agent', '--order', 'desc', '--limit', '4', '--json'])).stdout,
    );
    expect(first.map((c: { step: number }) => c.step)).toEqual([10, 9, 8, 7]);
    const next = JSON.parse(
      (await run(words`checkpoints list agent --order desc --limit 4 --after ${first.at(-1).id} --json`))
        .stdout,
    );
    expect(next.map((c: { step: number }) => c.step)).toEqual([6, 5, 4, 3]);
  });

  it('checks its own flags before sending (exit 2)', async () => {
    for (const args of [
      ['--limit', '0'],
      ['--limit', '101'],
      ['--order', 'up'],
      ['--plot', 'reward', '--json'],
    ]) {
      const r = await run(['checkpoints', 'list', 'agent', ...args]);
      expect([args, r.code]).toEqual([args, 2]);
    }
    expect(await emu.requests({ method: 'GET' })).toEqual([]);
  });

  it('maps 404, 401 and a server 422 to exit codes 3, 4 and 2', async () => {
    const missing = await run(['checkpoints', 'list', '99999999-9999-9999-9999-999999999999']);
    expect(missing.code).toBe(3);
    expect(missing.stderr).toMatch(
      /^error: Model 99999999-9999-9999-9999-999999999999 not found \(HTTP 404 from GET/,
    );
    const denied = await run(['checkpoints', 'list', 'agent'], {
      env: { AIP_API_KEY: 'someone-elses-key-0000' },
    });
    expect(denied.code).toBe(4);
    const cursor = await run(['checkpoints', 'list', 'agent', '--after', 'not-a-checkpoint']);
    expect(cursor.code).toBe(2);
    expect(cursor.stderr).toMatch(
      /\n {2}query\.after: Value error, no checkpoint not-a-checkpoint in this model\n$/,
    );
  });

  it('--plot draws the metric over the steps', async () => {
    await seed(40);
    const r = await run(['checkpoints', 'list', 'agent', '--plot', 'reward'], {
      env: { NO_COLOR: '1' },
      stdoutTTY: true,
    });
    expect(r.code).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines[0]).toBe(`reward over 40 checkpoints of local/demo/agent (${id})`);
    expect(lines.slice(1, -2).every((l) => /^ *[\d.]* ┤[\u2800-\u28ff]+$/.test(l))).toBe(true);
    expect(lines.at(-2)).toMatch(/└─+$/);
    expect(lines.at(-1)).toMatch(/^ +1 +40$/);
    const missing = await run(['checkpoints', 'list', 'agent', '--plot', 'accuracy']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(
      /no checkpoint of .* has the metric "accuracy"; metrics: grad_norm, learning_rate, loss, reward, reward_std_dev/,
    );
  });
});

describe('aip checkpoints delete', () => {
  it('deletes steps and prints what was deleted and what was not found', async () => {
    await seed(8);
    const r = await run(['checkpoints', 'delete', 'agent', '--steps', '3,5-6,9', '--yes']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('deleted\t3,5,6\nnot found\t9\n');
    const [request] = await emu.requests({ method: 'DELETE' });
    expect(request?.body).toEqual({ steps: [3, 5, 6, 9] });
    expect(await steps()).toEqual([0, 1, 2, 4, 7, 8]);
    const json = await run(['checkpoints', 'delete', 'agent', '--steps', '1', '--yes', '--json']);
    expect(JSON.parse(json.stdout)).toEqual({ deleted_count: 1, not_found_steps: [] });
  });

  it('exits 3 when none of the steps existed', async () => {
    const r = await run(['checkpoints', 'delete', 'agent', '--steps', '40,41', '--yes'], {
      env: { NO_COLOR: '1' },
      stdoutTTY: true,
    });
    expect(r.code).toBe(3);
    expect(r.stdout).toBe('deleted    none\nnot found  40-41\n');
    expect(r.stderr).toBe(`error: none of the steps 40-41 had a checkpoint in local/demo/agent (${id})\n`);
  });

  it('refuses bad step lists and non-interactive deletion without --yes, sending nothing', async () => {
    for (const list of ['3,x', '5-2', '-1', '']) {
      const r = await run(['checkpoints', 'delete', 'agent', '--steps', list, '--yes']);
      expect([list, r.code]).toEqual([list, 2]);
    }
    const unconfirmed = await run(['checkpoints', 'delete', 'agent', '--steps', '1']);
    expect(unconfirmed.code).toBe(2);
    expect(await emu.requests({ method: 'DELETE' })).toEqual([]);
  });
});

describe('aip checkpoints prune', () => {
  it('--dry-run shows the plan and deletes nothing', async () => {
    await seed(6);
    await emu.control('POST', `/models/${id}/checkpoints`, { steps: [2], metrics: { reward: 9 } });
    const r = await run('checkpoints prune agent --keep-last 2 --keep-best reward --dry-run');
    expect(r.code).toBe(0);
    const rows = r.stdout
      .trimEnd()
      .split('\n')
      .map((l) => l.split('\t').slice(0, 3));
    expect(rows).toEqual([
      ['0', 'delete', ''],
      ['1', 'delete', ''],
      ['2', 'keep', 'best reward (highest)'],
      ['3', 'delete', ''],
      ['4', 'delete', ''],
      ['5', 'keep', 'last 2'],
      ['6', 'keep', 'last 2'],
    ]);
    expect(r.stderr).toBe(
      `Dry run: would delete 4 of 7 checkpoints of local/demo/agent (${id}); nothing was deleted\n`,
    );
    expect(await emu.requests({ method: 'DELETE' })).toEqual([]);
    const json = JSON.parse(
      (await run(['checkpoints', 'prune', 'agent', '--keep-last', '2', '--dry-run', '--json'])).stdout,
    );
    expect(json).toEqual({ keep: [5, 6], delete: [0, 1, 2, 3, 4], best: null, dry_run: true, deleted: null });
  });

  it('deletes the rest in one request after confirmation (--yes)', async () => {
    await seed(5);
    const r = await run('checkpoints prune agent --keep-last 1 --keep-best loss:min --yes --json');
    expect(r.code).toBe(0);
    const result = JSON.parse(r.stdout);
    expect(result.keep).toContain(5);
    expect(result.best).toMatchObject({ metric: 'loss', lowest: true });
    expect(result.deleted.deleted_count).toBe(result.delete.length);
    const deletes = await emu.requests({ method: 'DELETE' });
    expect(deletes).toHaveLength(1);
    expect(deletes[0]?.body).toEqual({ steps: result.delete });
    expect(await steps()).toEqual(result.keep);
  });

  it('needs something to keep, and says when there is nothing to prune', async () => {
    const none = await run(['checkpoints', 'prune', 'agent', '--yes']);
    expect(none).toMatchObject({
      code: 2,
      stderr: 'error: say what to keep: --keep-last N, --keep-best METRIC, or both\n',
    });
    const nothing = await run(['checkpoints', 'prune', 'agent', '--keep-last', '5', '--yes']);
    expect(nothing.code).toBe(0);
    expect(nothing.stderr).toBe(`Nothing to prune: all 1 checkpoints of local/demo/agent (${id}) are kept\n`);
    expect(await emu.requests({ method: 'DELETE' })).toEqual([]);
  });
});

describe('plans and step lists', () => {
  const cps = [0, 1, 2, 3].map(
    (step): Checkpoint => ({
      id: `c${step}`,
      step,
      metrics: step ? { reward: [0, 0.9, 0.1, 0.5][step]!, loss: 4 - step } : {},
    }),
  );

  it('keeps the last N and the best, by either direction', () => {
    expect(planPrune(cps, { keepLast: 1, keepBest: 'reward' })).toMatchObject({
      keep: [1, 3],
      delete: [0, 2],
    });
    expect(planPrune(cps, { keepBest: 'loss:min' })).toMatchObject({ keep: [3], delete: [0, 1, 2] });
    expect(planPrune(cps, { keepLast: 10 })).toMatchObject({ keep: [0, 1, 2, 3], delete: [] });
    expect(() => planPrune(cps, { keepBest: 'accuracy' })).toThrow(UsageError);
  });

  it('parses lists and ranges, sorted and without repeats', () => {
    expect(parseSteps('7,3,5-6, 3')).toEqual([3, 5, 6, 7]);
    expect(() => parseSteps('1-200001')).toThrow(UsageError);
  });
});

describe('checkpoint deletes, the hard cases', () => {
  it('a retried delete does not call the steps it deleted "not found" a failure', async () => {
    await seed(4);
    await emu.fault({
      method: 'DELETE',
      path: `/training/v1/preview/models/${id}/checkpoints`,
      cut_after_bytes: 10,
    });
    const r = await run(['checkpoints', 'delete', 'agent', '--steps', '2,3', '--yes']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('deleted\t\nnot found\t2,3\n');
    expect(r.stderr.split('\n')).toEqual([
      `warning: DELETE /training/v1/preview/models/${id}/checkpoints: the connection was closed before the answer was complete; retrying in 0.4s (retry 1 of 3)`,
      'warning: the request was sent 2 times: steps reported as not found may have been deleted by an earlier attempt',
      '',
    ]);
    expect(await steps()).toEqual([0, 1, 4]);
  });

  it('asks on a terminal before deleting', async () => {
    await seed(2);
    const { io, stdin, stderr } = fakeIO({ env, stdinTTY: true, stderrTTY: true });
    const done = main(['checkpoints', 'delete', 'agent', '--steps', '1-2'], { env, io });
    await waitFor(() => stderr.text.includes('[y/N]'));
    expect(stderr.text).toContain(`Delete the checkpoints of steps 1-2 of local/demo/agent (${id})? [y/N]`);
    stdin.write('yes\r');
    expect(await done).toBe(0);
    expect(await steps()).toEqual([0]);
  });

  it('prune keeps the checkpoint that is best by the metric', async () => {
    await seed(5);
    await emu.control('POST', `/models/${id}/checkpoints`, {
      steps: [2],
      metrics: { loss: 0.001, reward: 0 },
    });
    const r = await run('checkpoints prune agent --keep-last 1 --keep-best loss:min --yes --json');
    const result = JSON.parse(r.stdout);
    expect(result.best).toEqual({ metric: 'loss', lowest: true, step: 2, value: 0.001 });
    expect(result.keep).toEqual([2, 5]);
    expect(await steps()).toEqual([2, 5]);
  });
});
