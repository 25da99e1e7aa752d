// Issue 28: --jq runs within a budget of time (AIP_JQ_TIMEOUT, 10 s) and memory (AIP_JQ_MEMORY,
// 256 MiB, jq's own ceiling); past either, one line and exit 1, never the engine's "Aborted()" nor a
// hang. Both hold for the built CLI (runAip) and on this thread, from the sources (compileJq). No assertion here is about speed: a budget of 0.5 s is
// reached by filters that never end, and each run is only bounded by a wait no machine comes near.

import { describe, expect, it } from 'vitest';
import { CliError } from '../../src/errors/errors.js';
import { compileJq, jqBudgetFrom } from '../../src/output/jq.js';
import { patience } from '../helpers/patience.js';
import { runAip } from '../helpers/spawn.js';

const MiB = 1024 * 1024;
const TIME =
  /^error: --jq: the filter ran past its time budget of 0\.5 s; AIP_JQ_TIMEOUT=<seconds> gives it longer$/;
const MEMORY =
  /^error: --jq: the filter (used|wrote|was given) more than its memory budget of 32 MiB; AIP_JQ_MEMORY=256M gives it more$/;

function aip(filter: string, env: Record<string, string>) {
  return runAip(['config', 'list', '--jq', filter], { env, timeoutMs: patience(120_000) });
}

function expectOneLine(
  r: { code: number | null; stdout: string; stderr: string },
  line: RegExp,
  what: string,
) {
  expect(r.code, `${what}: ${r.stderr}`).toBe(1);
  expect(r.stderr.trimEnd().split('\n'), what).toHaveLength(1);
  expect(r.stderr.trimEnd(), what).toMatch(line);
  expect(r.stderr, what).not.toMatch(/Aborted|unexpected failure|ASSERTIONS/);
}

describe('the time budget (the built CLI)', () => {
  it.each([
    'last(range(1e12))',
    'def f: f; f',
    'def f: f | f; f',
    '[range(1e12)] | length',
    'reduce range(1e12) as $i (0; . + $i)',
    'until(false; .)',
    'last(repeat(1))',
  ])('%s: ends with one line, exit 1, once past it', async (filter) => {
    const r = await aip(filter, { AIP_JQ_TIMEOUT: '0.5', AIP_JQ_MEMORY: '256M' });
    // An endless filter that fills memory first is stopped by that budget instead: either way, one line.
    if (/memory budget/.test(r.stderr)) {
      expect(r.code).toBe(1);
      expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
    } else expectOneLine(r, TIME, filter);
  });

  it('gives a filter that ends within it its results, over several runs of one engine', async () => {
    // A budget set for a busy machine: 0.5 s, the endless filters' budget above, was passed by this
    // quick filter on a loaded one (two test runs side by side).
    const r = await runAip(['config', 'list', '--jsonl', '--jq', 'keys | length'], {
      env: { AIP_JQ_TIMEOUT: String(patience(30_000) / 1000) },
      timeoutMs: patience(120_000),
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^\d+\n$/);
    const many = await runAip(
      ['config', 'list', '--jq', '([range(100000)] | length), (.output | ascii_upcase)'],
      {
        timeoutMs: patience(120_000),
      },
    );
    expect(many.code, many.stderr).toBe(0);
    expect(many.stdout).toBe('100000\nTABLE\n');
  });

  it('AIP_JQ_TIMEOUT and AIP_JQ_MEMORY that make no sense are usage errors (exit 2)', async () => {
    const envs: Record<string, string>[] = [
      { AIP_JQ_TIMEOUT: '0' },
      { AIP_JQ_TIMEOUT: 'soon' },
      { AIP_JQ_MEMORY: '1G' },
      { AIP_JQ_MEMORY: '1M' },
    ];
    for (const env of envs) {
      const r = await aip('.', env);
      expect(r.code, JSON.stringify(env)).toBe(2);
      expect(r.stderr).toMatch(/^error: AIP_JQ_(TIMEOUT|MEMORY): expected /);
    }
  });
});

describe('the memory budget (the built CLI)', () => {
  it.each([
    '[range(1e9)]',
    '[limit(1e8; repeat(1))] | length',
    'def f: [f]; f',
    'reduce range(1e9) as $i (""; . + "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx")',
    '"x" * 1e9',
    '[range(1e7)] | tostring | length',
    'repeat("xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx")',
    'def f: ., (. + . | f); "xx" | f | length',
  ])('%s: ends with one line, exit 1, once past it', async (filter) => {
    // Time enough that only the memory budget can stop these.
    const r = await aip(filter, { AIP_JQ_TIMEOUT: '3600', AIP_JQ_MEMORY: '32M' });
    expectOneLine(r, MEMORY, filter);
  });
});

describe('from the sources (compileJq)', () => {
  const budget = { seconds: 10, memoryBytes: 32 * MiB };

  it('an input larger than the budget is refused before jq sees it', async () => {
    const jq = await compileJq('length', { pretty: false, budget });
    expect(() => jq.run('x'.repeat(33 * MiB))).toThrow(
      'the filter was given more than its memory budget of 32 MiB',
    );
  });

  it('a filter that fills memory is an error in one line, and the filter is not run again', async () => {
    const jq = await compileJq('[range(1e9)]', { pretty: false, budget });
    expect(() => jq.run(null)).toThrow(CliError);
    expect(() => jq.run(null)).toThrow('--jq: the filter used more than its memory budget of 32 MiB');
  });

  it('an expression whose constants go over the budget as it compiles', async () => {
    await expect(compileJq('"x" * 1e9', { pretty: false, budget })).rejects.toThrow(
      'memory budget of 32 MiB',
    );
  });

  it('a filter that never ends is stopped at the time budget, and not run again', async () => {
    const jq = await compileJq('last(range(1e12))', { pretty: false, budget: { ...budget, seconds: 0.3 } });
    expect(() => jq.run(null)).toThrow('--jq: the filter ran past its time budget of 0.3 s');
    expect(() => jq.run(null)).toThrow('time budget');
  });

  it('reads the budget from the environment, 10 s and 256 MiB by default', () => {
    expect(jqBudgetFrom({})).toEqual({ seconds: 10, memoryBytes: 256 * MiB });
    expect(jqBudgetFrom({ AIP_JQ_TIMEOUT: '0.5', AIP_JQ_MEMORY: '64MiB' })).toEqual({
      seconds: 0.5,
      memoryBytes: 64 * MiB,
    });
  });
});
