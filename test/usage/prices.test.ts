// The price table: the built-in prices, the user's file over them, trained checkpoints priced as their
// base model (from the local model record), and a file that is wrong stopping the command (exit 2).

import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/errors/errors.js';
import { parsePriceFile } from '../../src/usage/price-file.js';
import {
  BUILT_IN_PRICES,
  LORA_PRICING_SOURCE,
  PRICES_READ_ON,
  TRAINING_PRICING_SOURCE,
} from '../../src/usage/price-table.js';
import { artifactName, costOf, loadPrices, priceOf } from '../../src/usage/prices.js';
import { tempDir } from '../helpers/temp.js';

function envWith(files: { prices?: unknown; models?: unknown } = {}) {
  const dir = tempDir('aip-prices-');
  if (files.prices !== undefined)
    writeFileSync(
      join(dir, 'prices.json'),
      typeof files.prices === 'string' ? files.prices : JSON.stringify(files.prices),
    );
  if (files.models !== undefined) writeFileSync(join(dir, 'models.json'), JSON.stringify(files.models));
  return { AIP_CONFIG_DIR: dir, AIP_DATA_DIR: join(dir, 'data') };
}

const model = (name: string, base: string, baseUrl = 'https://api.training.wandb.ai/v1') => ({
  id: `id-${name}-${base.length}-${baseUrl.length}`,
  entity: 'team',
  project: 'proj',
  name,
  base_model: base,
  base_url: baseUrl,
  created_at: '2026-11-20T10:00:00Z',
});

describe('the built-in table', () => {
  it('holds only prices with a W&B source, read on a stated date', () => {
    expect(BUILT_IN_PRICES.length).toBeGreaterThan(0);
    for (const p of BUILT_IN_PRICES) {
      expect(p.source).toMatch(/^https:\/\/(wandb\.ai\/site\/inference\/|docs\.wandb\.ai\/)/);
      expect(Number.isFinite(p.input_per_mtok) && p.input_per_mtok >= 0).toBe(true);
      expect(Number.isFinite(p.output_per_mtok) && p.output_per_mtok >= 0).toBe(true);
    }
    expect(PRICES_READ_ON).toMatch(/^\d{4}-\d{2}-\d{2}$/);
  });

  it("prices a published model by W&B's own page, whatever the API", () => {
    const table = loadPrices({ env: envWith() });
    const price = priceOf(table, 'openai/gpt-oss-20b', 'inference');
    expect(price).toEqual({
      input_per_mtok: 0.05,
      output_per_mtok: 0.2,
      source: 'https://wandb.ai/site/inference/openai-gpt-oss-20b',
    });
    expect(priceOf(table, 'OPENAI/GPT-OSS-20B', 'training')).toEqual(price);
  });

  it('knows no price for a model W&B publishes none for: undefined, never a guess', () => {
    const table = loadPrices({ env: envWith() });
    expect(priceOf(table, 'meta-llama/Llama-3.1-8B-Instruct', 'inference')).toBeUndefined();
    expect(priceOf(table, 'some/unknown-model', 'inference')).toBeUndefined();
    expect(priceOf(table, 'constructor', 'inference')).toBeUndefined();
    expect(priceOf(table, '__proto__', 'inference')).toBeUndefined();
  });

  it('counts training as free (the preview) with its source, and storage as not priced', () => {
    const table = loadPrices({ env: envWith() });
    expect(table.training).toEqual({
      input_per_mtok: 0,
      output_per_mtok: 0,
      source: TRAINING_PRICING_SOURCE,
    });
    expect(table.storage).toBeUndefined();
  });
});

describe('costOf', () => {
  it('is dollars per million tokens in and out', () => {
    const price = { input_per_mtok: 0.05, output_per_mtok: 0.22, source: 'x' };
    expect(costOf(price, 1_000_000, 0)).toBeCloseTo(0.05, 12);
    expect(costOf(price, 2_000_000, 500_000)).toBeCloseTo(0.1 + 0.11, 12);
    expect(costOf(price, 0, 0)).toBe(0);
  });
});

describe('trained checkpoints', () => {
  it('are priced as the base model the local record names, citing both sources', () => {
    const env = envWith({ models: { models: [model('agent-001', 'OpenPipe/Qwen3-14B-Instruct')] } });
    const price = priceOf(loadPrices({ env }), 'wandb-artifact:///team/proj/agent-001:step12', 'training');
    expect(price).toEqual({
      input_per_mtok: 0.05,
      output_per_mtok: 0.22,
      source: 'https://wandb.ai/site/inference/cw_openpipe_qwen3-14b-instruct',
      base_model: 'OpenPipe/Qwen3-14B-Instruct',
    });
    expect(LORA_PRICING_SOURCE).toBe('https://docs.wandb.ai/inference/lora');
  });

  it('are unknown when the record does not know them, or their base has no price', () => {
    const env = envWith({ models: { models: [model('agent-002', 'Qwen/Qwen3-30B-A3B-Instruct-2507')] } });
    const table = loadPrices({ env });
    expect(priceOf(table, 'wandb-artifact:///team/proj/agent-001:step3', 'training')).toBeUndefined();
    expect(priceOf(table, 'wandb-artifact:///team/proj/agent-002:step3', 'training')).toBeUndefined();
  });

  it('are unknown when two records of the same name disagree on the base', () => {
    const env = envWith({
      models: {
        models: [
          model('agent', 'OpenPipe/Qwen3-14B-Instruct'),
          model('agent', 'openai/gpt-oss-20b', 'http://127.0.0.1:4010/v1'),
        ],
      },
    });
    expect(
      priceOf(loadPrices({ env }), 'wandb-artifact:///team/proj/agent:step1', 'training'),
    ).toBeUndefined();
  });

  it('read their name from the URI: three slashes (or the docs typo of two), the alias dropped', () => {
    expect(artifactName('wandb-artifact:///t/p/n:step5')).toBe('t/p/n');
    expect(artifactName('wandb-artifact:///t/p/n')).toBe('t/p/n');
    expect(artifactName('wandb-artifact://t/p/n:latest')).toBe('t/p/n');
    expect(artifactName('wandb-artifact:///t/p')).toBeUndefined();
    expect(artifactName('wandb-artifact:///t/p/:step1')).toBeUndefined();
    expect(artifactName('openai/gpt-oss-20b')).toBeUndefined();
  });
});

describe("the user's prices file", () => {
  it('wins over the built-in table, and prices models it does not know', () => {
    const env = envWith({
      prices: {
        models: {
          'openai/gpt-oss-20b': { input_per_mtok: 0.1, output_per_mtok: 0.3 },
          'meta-llama/Llama-3.1-8B-Instruct': {
            input_per_mtok: 0.2,
            output_per_mtok: 0.2,
            note: 'my invoice',
          },
        },
      },
    });
    const table = loadPrices({ env });
    const file = join(env.AIP_CONFIG_DIR, 'prices.json');
    expect(table.file).toEqual({ path: file, found: true });
    expect(priceOf(table, 'openai/gpt-oss-20b', 'inference')).toEqual({
      input_per_mtok: 0.1,
      output_per_mtok: 0.3,
      source: file,
    });
    expect(priceOf(table, 'meta-llama/Llama-3.1-8B-Instruct', 'inference')?.input_per_mtok).toBe(0.2);
  });

  it('prices checkpoints by wandb-artifact prefix, whole segments only, longest first', () => {
    const env = envWith({
      prices: {
        models: {
          'wandb-artifact:///team/proj/': { input_per_mtok: 1, output_per_mtok: 1 },
          'wandb-artifact:///team/proj/agent': { input_per_mtok: 2, output_per_mtok: 2 },
        },
      },
      models: { models: [model('agent-2', 'OpenPipe/Qwen3-14B-Instruct')] },
    });
    const table = loadPrices({ env });
    expect(priceOf(table, 'wandb-artifact:///team/proj/agent:step1', 'training')?.input_per_mtok).toBe(2);
    // "agent" is not a prefix of "agent-2": the project's entry prices it, before its base model would.
    expect(priceOf(table, 'wandb-artifact:///team/proj/agent-2:step1', 'training')?.input_per_mtok).toBe(1);
    expect(priceOf(table, 'wandb-artifact:///other/proj/agent:step1', 'training')).toBeUndefined();
  });

  it('takes hostile names as names: __proto__ and constructor are entries like any other', () => {
    const env = envWith({
      prices:
        '{"models": {"__proto__": {"input_per_mtok": 1, "output_per_mtok": 2}, "constructor": {"input_per_mtok": 3, "output_per_mtok": 4}}}',
    });
    const table = loadPrices({ env });
    expect(priceOf(table, '__proto__', 'inference')?.output_per_mtok).toBe(2);
    expect(priceOf(table, 'constructor', 'inference')?.output_per_mtok).toBe(4);
    expect(priceOf(table, 'toString', 'inference')).toBeUndefined();
    expect(({} as Record<string, unknown>).input_per_mtok).toBeUndefined();
  });

  it('may be named by AIP_PRICES_FILE; a missing default file is no prices, a missing named one an error', () => {
    const dir = tempDir('aip-prices-');
    const named = join(dir, 'mine.json');
    writeFileSync(named, JSON.stringify({ models: { a: { input_per_mtok: 1, output_per_mtok: 1 } } }));
    const env = { ...envWith(), AIP_PRICES_FILE: named };
    expect(priceOf(loadPrices({ env }), 'a', 'inference')?.source).toBe(named);
    expect(loadPrices({ env: envWith() }).file.found).toBe(false);
    const missing = { ...envWith(), AIP_PRICES_FILE: join(dir, 'none.json') };
    expect(() => loadPrices({ env: missing })).toThrow(/cannot read prices file .*none\.json: ENOENT/);
  });

  it('is a usage error (exit 2) naming the file and the entry, for every way to be wrong', () => {
    const file = '/cfg/prices.json';
    const cases: Array<[string, RegExp]> = [
      ['not json', /is not valid JSON/],
      ['[]', /does not hold a JSON object/],
      ['{"model": {}}', /unknown top-level field "model"/],
      ['{"models": []}', /"models" field that is not an object/],
      ['{"models": {"a": 1}}', /entry "a" must be an object/],
      ['{"models": {"a": {"input_per_mtok": 1}}}', /entry "a" output_per_mtok must be a finite number ≥ 0/],
      ['{"models": {"a": {"input_per_mtok": -1, "output_per_mtok": 1}}}', /entry "a" input_per_mtok/],
      ['{"models": {"a": {"input_per_mtok": "1", "output_per_mtok": 1}}}', /entry "a" input_per_mtok/],
      ['{"models": {"a": {"input_per_mtok": 1e999, "output_per_mtok": 1}}}', /entry "a" input_per_mtok/],
      [
        '{"models": {"a": {"input_per_mtok": 1, "output_per_mtok": 1, "cached": 1}}}',
        /unknown field "cached"/,
      ],
      ['{"models": {"a": {"input_per_mtok": 1, "output_per_mtok": 1, "note": 5}}}', /note must be a string/],
      [
        '{"models": {"": {"input_per_mtok": 1, "output_per_mtok": 1}}}',
        /entry "" a model name must be non-empty/,
      ],
      ['{"models": {" a": {"input_per_mtok": 1, "output_per_mtok": 1}}}', /entry " a" a model name/],
      ['{"models": {"a\\u001b[2J": {"input_per_mtok": 1, "output_per_mtok": 1}}}', /control characters/],
      [
        '{"models": {"__proto__": {"input_per_mtok": null, "output_per_mtok": 1}}}',
        /entry "__proto__" input/,
      ],
    ];
    for (const [text, message] of cases) {
      let error: unknown;
      try {
        parsePriceFile(file, text);
      } catch (e) {
        error = e;
      }
      expect(error, text).toBeInstanceOf(UsageError);
      expect((error as Error).message, text).toMatch(message);
      expect((error as Error).message, text).toContain(file);
      expect((error as Error).message, text).not.toContain('\n');
    }
  });

  it('stops loadPrices when it is wrong', () => {
    const env = envWith({ prices: { models: { m: { input_per_mtok: Number.NaN } } } });
    mkdirSync(env.AIP_DATA_DIR, { recursive: true });
    expect(() => loadPrices({ env })).toThrow(UsageError);
  });
});
