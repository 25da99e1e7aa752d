// The test harness itself: the string form of command lines, the seed rule, the run's temporary
// directory, and the process check that fails a run which leaves processes behind.

import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { chmodSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { words } from './cli.js';
import { findProcesses, waitForProcesses } from './leaks.js';
import { resolveSlowdown } from './patience.js';
import { DEFAULT_SEED, resolveSeed, TEST_SEED } from './seed.js';
import { removeTree, tempDir } from './temp.js';

describe('words', () => {
  it('splits on whitespace, keeps quoted parts whole, and takes a tag value as one word', () => {
    expect(words('jobs  create rl\n--model agent')).toEqual(['jobs', 'create', 'rl', '--model', 'agent']);
    expect(words(`models create --name "my model" -o 'stop=["x"]' --name="a b" ''`)).toEqual([
      'models',
      'create',
      '--name',
      'my model',
      '-o',
      'stop=["x"]',
      '--name=a b',
      '',
    ]);
    const file = '/tmp/a dir/with "quotes".jsonl';
    expect(words`jobs create rl --file ${file} --interval=${0.5} ${['-q', '--json']}`).toEqual([
      'jobs',
      'create',
      'rl',
      '--file',
      file,
      '--interval=0.5',
      '-q',
      '--json',
    ]);
    expect(() => words('chat "hello')).toThrow(/unclosed "/);
  });
});

describe('the seed of generated cases', () => {
  it('is fixed by default, replays a number, and draws one for "random"', () => {
    expect(resolveSeed(undefined)).toEqual({ seed: DEFAULT_SEED, random: false });
    expect(resolveSeed(' ')).toEqual({ seed: DEFAULT_SEED, random: false });
    expect(resolveSeed('42')).toEqual({ seed: 42, random: false });
    expect(resolveSeed('-7')).toEqual({ seed: -7, random: false });
    const drawn = resolveSeed('random');
    expect(drawn.random).toBe(true);
    expect(drawn.seed).toBe(drawn.seed | 0);
    for (const bad of ['1.5', 'abc', '99999999999']) expect(() => resolveSeed(bad)).toThrow(/AIP_TEST_SEED/);
  });

  it("is the run's: a number in every worker, whatever AIP_TEST_SEED said", () => {
    expect(process.env.AIP_TEST_SEED).toBe(String(TEST_SEED));
  });
});

describe('AIP_TEST_SLOWDOWN', () => {
  it('is 1 unless given, and otherwise a positive number', () => {
    expect(resolveSlowdown(undefined)).toBe(1);
    expect(resolveSlowdown(' ')).toBe(1);
    expect(resolveSlowdown('2.5')).toBe(2.5);
    for (const bad of ['0', '-1', 'x', 'Infinity'])
      expect(() => resolveSlowdown(bad)).toThrow(/AIP_TEST_SLOWDOWN/);
  });
});

describe("the run's temporary directory", () => {
  it('is where the OS temporary directory points during the run', () => {
    expect(process.env.AIP_TEST_RUN).toBeTruthy();
    expect(tmpdir()).toBe(process.env.AIP_TEST_RUN);
  });

  it('tempDir() makes directories in it, removed whatever their modes', () => {
    const dir = tempDir('aip-test-harness-');
    expect(dir.startsWith(join(tmpdir(), 'aip-test-harness-'))).toBe(true);
    mkdirSync(join(dir, 'locked'));
    writeFileSync(join(dir, 'locked', 'file'), 'x');
    chmodSync(join(dir, 'locked'), 0o500);
    removeTree(dir);
    expect(existsSync(dir)).toBe(false);
  });
});

describe.runIf(process.platform === 'linux')('the process check (/proc)', () => {
  it('finds a process this one started, and one marked as the run’s wherever it is; not once it is gone', async () => {
    const marker = `aip-harness-marker-${process.pid}-${Date.now()}`;
    const child = spawn('sleep', ['30'], { stdio: 'ignore' });
    const marked = spawn('sleep', ['31'], {
      stdio: 'ignore',
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', AIP_HARNESS: marker },
    });
    const exited = (c: typeof child) => new Promise((resolve) => c.once('exit', resolve));
    try {
      // Both are running (exec'd, so the marker is in the environment /proc shows) once spawned.
      await Promise.all([once(child, 'spawn'), once(marked, 'spawn')]);
      const pids = findProcesses().map((p) => p.pid);
      expect(pids).toContain(child.pid);
      expect(pids).toContain(marked.pid);
      // From another root (as the run's check sees an orphan): only the marked one.
      const byMarker = findProcesses({ root: -1, marker }).map((p) => p.pid);
      expect(byMarker).toEqual([marked.pid]);
    } finally {
      const gone = [exited(child), exited(marked)];
      child.kill('SIGKILL');
      marked.kill('SIGKILL');
      await Promise.all(gone);
    }
    const left = await waitForProcesses({ ms: 2000 });
    expect(left.map((p) => p.pid)).not.toContain(child.pid);
    expect(left.map((p) => p.pid)).not.toContain(marked.pid);
  });
});
