// `aip usage`'s arithmetic on plain rows: sums per model, command, job, run and day; cost only where
// every row has a price, a lower bound marked as such otherwise, "unknown" where none has one.

import { describe, expect, it } from 'vitest';
import type { UsageRow } from '../../src/history/query.js';
import { aggregateUsage, costText, keyOf } from '../../src/usage/aggregate.js';
import type { PriceEntry, PriceTable } from '../../src/usage/prices.js';

function tableOf(prices: Record<string, [number, number]>, bases: Record<string, string> = {}): PriceTable {
  const models = new Map<string, PriceEntry>();
  for (const [model, [input, output]] of Object.entries(prices))
    models.set(model.toLowerCase(), {
      model,
      input_per_mtok: input,
      output_per_mtok: output,
      source: `https://wandb.ai/site/inference/${model}`,
      origin: 'built-in',
    });
  return {
    models,
    artifactPrefixes: [],
    baseModels: new Map(Object.entries(bases)),
    training: { input_per_mtok: 0, output_per_mtok: 0, source: 'x' },
    storage: undefined,
    file: { path: '/cfg/prices.json', found: false },
  };
}

function row(over: Partial<UsageRow> = {}): UsageRow {
  return {
    run: 'r1',
    id: 1,
    at: '2026-11-20T10:00:00.000Z',
    command: 'rollouts',
    profile: 'default',
    ref: null,
    api: 'inference',
    model: 'a/priced',
    purpose: 'sample',
    prompt_tokens: 1000,
    completion_tokens: 100,
    samples: 1,
    job: null,
    ...over,
  };
}

const table = tableOf({ 'a/priced': [1, 2], 'b/cheap': [0.5, 0.5] });

describe('aggregateUsage', () => {
  it('sums requests, samples and tokens per model, with a total equal to the sum of the rows', () => {
    const rows = [
      row({ model: 'a/priced', prompt_tokens: 100, completion_tokens: 10, samples: 4 }),
      row({ model: 'b/cheap', prompt_tokens: 200, completion_tokens: 20 }),
      row({ model: 'a/priced', prompt_tokens: 300, completion_tokens: 30, samples: 2 }),
    ];
    const report = aggregateUsage(rows, 'model', table);
    expect(
      report.groups.map((g) => [g.key, g.requests, g.samples, g.prompt_tokens, g.completion_tokens]),
    ).toEqual([
      ['a/priced', 2, 6, 400, 40],
      ['b/cheap', 1, 1, 200, 20],
    ]);
    expect(report.total).toMatchObject({
      key: 'total',
      requests: 3,
      samples: 7,
      prompt_tokens: 600,
      completion_tokens: 60,
    });
    expect(report.groups[0]!.cost).toBeCloseTo((400 * 1 + 40 * 2) / 1e6, 15);
    expect(report.total.cost).toBeCloseTo((400 + 80 + 100 + 10) / 1e6, 15);
    expect(report.total.unpriced_models).toEqual([]);
  });

  it('groups by command, job ("-" for none), run and day', () => {
    const rows = [
      row({ command: 'rollouts', job: null, ref: '/w/out.jsonl', id: 1, at: '2026-11-19T23:59:59.000Z' }),
      row({ command: 'train rl', job: 'job-1', ref: null, id: 2, at: '2026-11-20T00:00:00.000Z' }),
      row({ command: 'rollouts', job: 'job-1', ref: '/w/out.jsonl', id: 3, at: '2026-11-18T12:00:00.000Z' }),
      row({ command: 'eval', job: null, ref: null, id: 4, at: '2026-11-20T08:00:00.000Z' }),
    ];
    const keys = (by: Parameters<typeof aggregateUsage>[1]) =>
      aggregateUsage(rows, by, table).groups.map((g) => [g.key, g.requests]);
    expect(keys('command')).toEqual([
      ['rollouts', 2],
      ['train rl', 1],
      ['eval', 1],
    ]);
    expect(keys('job')).toEqual([
      ['-', 2],
      ['job-1', 2],
    ]);
    // The invocations that --resume carried on (the same file) are one run; the others, one each.
    expect(keys('run')).toEqual([
      ['/w/out.jsonl', 2],
      ['#2', 1],
      ['#4', 1],
    ]);
    // Days in order (UTC), whatever order the rows came in.
    expect(keys('day')).toEqual([
      ['2026-11-18', 1],
      ['2026-11-19', 1],
      ['2026-11-20', 2],
    ]);
  });

  it('keeps the first and last time of each group', () => {
    const rows = [row({ at: '2026-11-20T10:00:00.000Z' }), row({ at: '2026-11-20T09:00:00.000Z' })];
    const [group] = aggregateUsage(rows, 'model', table).groups;
    expect([group!.first_at, group!.last_at]).toEqual([
      '2026-11-20T09:00:00.000Z',
      '2026-11-20T10:00:00.000Z',
    ]);
  });

  it('has no cost for a group with an unpriced model: a lower bound, with the models named', () => {
    const rows = [
      row({ model: 'a/priced', prompt_tokens: 1_000_000, completion_tokens: 0, command: 'eval' }),
      row({ model: 'z/unknown', command: 'eval' }),
      row({ model: 'y/unknown', command: 'eval' }),
      row({ model: 'z/unknown', command: 'rollouts' }),
    ];
    const report = aggregateUsage(rows, 'command', table);
    const [evalGroup, rollouts] = report.groups;
    expect(evalGroup).toMatchObject({ cost: null, priced_cost: 1, priced_requests: 1 });
    expect(evalGroup!.unpriced_models).toEqual(['z/unknown', 'y/unknown']);
    expect(costText(evalGroup!)).toBe('≥ $1.00 (2 models unpriced)');
    expect(rollouts).toMatchObject({ cost: null, priced_cost: 0, priced_requests: 0 });
    expect(costText(rollouts!)).toBe('unknown');
    expect(report.total.cost).toBeNull();
    expect(costText(report.total)).toBe('≥ $1.00 (2 models unpriced)');
    expect(report.prices).toEqual([
      { model: 'a/priced', api: 'inference', price: expect.objectContaining({ input_per_mtok: 1 }) },
      { model: 'z/unknown', api: 'inference', price: null },
      { model: 'y/unknown', api: 'inference', price: null },
    ]);
  });

  it('prices a checkpoint as its base model, and says so among the prices used', () => {
    const priced = tableOf({ 'a/priced': [1, 2] }, { 'team/proj/agent': 'a/priced' });
    const rows = [
      row({
        api: 'training',
        model: 'wandb-artifact:///team/proj/agent:step3',
        prompt_tokens: 10,
        completion_tokens: 5,
      }),
    ];
    const report = aggregateUsage(rows, 'model', priced);
    expect(report.total.cost).toBeCloseTo((10 + 10) / 1e6, 15);
    expect(report.prices[0]).toMatchObject({ api: 'training', price: { base_model: 'a/priced' } });
  });

  it('counts a price of zero as known (a free model costs $0, not "unknown")', () => {
    const free = tableOf({ 'f/free': [0, 0] });
    const report = aggregateUsage([row({ model: 'f/free' })], 'model', free);
    expect(report.total.cost).toBe(0);
    expect(costText(report.total)).toBe('$0');
  });

  it('is empty, with a zero total, for no rows', () => {
    const report = aggregateUsage([], 'day', table);
    expect(report.groups).toEqual([]);
    expect(report.total).toMatchObject({ requests: 0, cost: 0 });
  });

  it('keys a row as documented', () => {
    expect(keyOf(row({ ref: null, id: 7 }), 'run')).toBe('#7');
    expect(keyOf(row({ at: '2026-01-02T03:04:05Z' }), 'day')).toBe('2026-01-02');
  });
});
