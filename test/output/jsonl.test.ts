// --jsonl on every command that lists: the list one item per line (what --json prints as one array),
// anything else as one line; with --jq, jq runs on each item. --json with --jsonl is a usage error.

import { describe, expect, it } from 'vitest';
import { useEmulator } from '../helpers/emulator.js';
import { finishedJob } from '../helpers/jobs.js';

const t = useEmulator({ runOptions: { sleepCap: 5 } });
const { emu, run } = t;

/** stdout as JSON Lines: every line one JSON text, none empty. */
function jsonLines(stdout: string): unknown[] {
  expect(stdout.endsWith('\n')).toBe(true);
  return stdout
    .slice(0, -1)
    .split('\n')
    .map((line) => JSON.parse(line) as unknown);
}

/** `--jsonl` gives the items of what `--json` gives, one per line, nothing else on stdout. */
async function sameItems(command: string[]): Promise<unknown[]> {
  const json = await run([...command, '--json']);
  const jsonl = await run([...command, '--jsonl']);
  expect(json.code, json.stderr).toBe(0);
  expect(jsonl.code, jsonl.stderr).toBe(0);
  const items = JSON.parse(json.stdout) as unknown[];
  expect(Array.isArray(items)).toBe(true);
  expect(items.length).toBeGreaterThan(0);
  expect(jsonLines(jsonl.stdout)).toEqual(items);
  return items;
}

describe('--jsonl on each command that lists', () => {
  it('models list', async () => {
    await sameItems(['models', 'list']);
  });

  it('models base', async () => {
    await sameItems(['models', 'base']);
  });

  it('checkpoints list: a page, and --all over several pages', async () => {
    await finishedJob(t, 4);
    expect(await sameItems(['checkpoints', 'list', 'agent', '--limit', '2'])).toHaveLength(2);
    expect(await sameItems(['checkpoints', 'list', 'agent', '--all', '--limit', '2'])).toHaveLength(5);
  });

  it('jobs list', async () => {
    const id = await finishedJob(t, 1);
    expect(await sameItems(['jobs', 'list'])).toEqual([expect.objectContaining({ id })]);
  });

  it('events: a page, and --all over several pages', async () => {
    const id = await finishedJob(t, 3);
    expect(await sameItems(['events', id, '--limit', '2'])).toHaveLength(2);
    expect(await sameItems(['events', id, '--all', '--limit', '2'])).toHaveLength(5);
  });

  it('events --follow: one event per line, to the end', async () => {
    const id = await finishedJob(t, 2);
    const r = await run(['events', id, '--follow', '--jsonl', '--interval', '0.01']);
    expect(r.code).toBe(0);
    expect((jsonLines(r.stdout) as Array<{ type: string }>).map((e) => e.type)).toEqual([
      'training_started',
      'gradient_step',
      'gradient_step',
      'training_ended',
    ]);
  });

  it('config profiles, and health (lists of rows)', async () => {
    await sameItems(['config', 'profiles']);
    // Latencies differ from run to run: the rows are compared without them.
    const r = await run('health --jsonl');
    expect((jsonLines(r.stdout) as Array<{ interface: string }>).map((c) => c.interface)).toEqual([
      'training',
      'inference',
      'trace',
    ]);
  });

  it('an empty list prints nothing', async () => {
    const r = await run('jobs list --jsonl');
    expect(r).toMatchObject({ code: 0, stdout: '' });
  });

  it('what is not a list is one line (config list, auth status)', async () => {
    for (const command of [
      ['config', 'list'],
      ['auth', 'status'],
    ]) {
      const json = await run([...command, '--json']);
      const jsonl = await run([...command, '--jsonl']);
      expect(jsonl.stdout.split('\n')).toHaveLength(2);
      expect(jsonLines(jsonl.stdout)).toEqual([JSON.parse(json.stdout)]);
    }
  });
});

describe('--jsonl with --jq: jq runs on each item', () => {
  it('a list: one run per item, so `.id` rather than `.[].id`', async () => {
    const items = (await sameItems(['models', 'list'])) as Array<{ id: string }>;
    const r = await run(['models', 'list', '--jsonl', '--jq', '.id']);
    expect(r.stdout).toBe(items.map((m) => `${m.id}\n`).join(''));
    // jq's `length` of each item, not of the list.
    const lengths = await run(['models', 'list', '--jsonl', '--jq', 'keys | length']);
    expect(lengths.stdout.split('\n').filter(Boolean)).toHaveLength(items.length);
  });

  it('select keeps some items; objects stay one compact line each', async () => {
    const r = await run(['health', '--jsonl', '--jq', 'select(.interface != "trace") | {interface}']);
    expect(r.stdout).toBe('{"interface":"training"}\n{"interface":"inference"}\n');
  });

  it('events --follow: filtered as each event arrives', async () => {
    const id = await finishedJob(t, 2);
    const r = await run(['events', id, '--follow', '--jsonl', '--jq', '.type', '--interval', '0.01']);
    expect(r.stdout).toBe('training_started\ngradient_step\ngradient_step\ntraining_ended\n');
  });

  it('events --follow --jq without --jsonl: the filter runs on each event too (a follow has no end to wait for)', async () => {
    const id = await finishedJob(t, 2);
    const r = await run(['events', id, '--follow', '--jq', '.type', '--interval', '0.01']);
    expect(r.stdout).toBe('training_started\ngradient_step\ngradient_step\ntraining_ended\n');
  });

  it('a run-time error on an item ends the command (exit 1) after the items before it', async () => {
    const r = await run([
      'health',
      '--jsonl',
      '--jq',
      'if .interface == "inference" then error("no") else .interface end',
    ]);
    expect(r).toMatchObject({ code: 1, stdout: 'training\n', stderr: 'error: --jq: no\n' });
  });
});

describe('--json with --jsonl', () => {
  it('is a usage error on any command, before anything is sent', async () => {
    for (const command of ['models list', 'jobs list', 'config list', 'health']) {
      const r = await run(`${command} --json --jsonl`);
      expect(r).toMatchObject({ code: 2, stdout: '' });
      expect(r.stderr).toBe('error: give --json (one document) or --jsonl (one item per line), not both\n');
    }
    expect(await emu.requests()).toEqual([]);
  });
});
