// `aip usage` and `aip usage prices`, in-process, against a history made by writing journal files as
// aip writes them (test/history/journal-fixture.ts): the sums per --by key, the time range, cost and
// its unknowns, the table, TSV and JSON forms, a bad prices file, and journal text shown, not acted on.

import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import { describe, expect, it } from 'vitest';
import type { HistoryEvent } from '../../src/history/events.js';
import { runCli, tempConfigDir } from '../helpers/cli.js';
import { begin, DEAD_PID, end, journalFile } from '../history/journal-fixture.js';

function envFor() {
  const configDir = tempConfigDir();
  return { AIP_CONFIG_DIR: configDir, AIP_DATA_DIR: join(configDir, 'data'), AIP_EMULATOR_SQLITE: 'wasm' };
}
type Env = ReturnType<typeof envFor>;

let files = 0;
/** One finished command: begin, its notes and answers, end. */
function command(env: Env, over: Partial<HistoryEvent>, events: (run: string) => object[]): string {
  const file = journalFile(env, { pid: DEAD_PID, at: ++files });
  file.append(begin(file.run, over), ...(events(file.run) as HistoryEvent[]), end(file.run));
  return file.run;
}

const answer = (
  run: string,
  at: string,
  model: string,
  prompt: number,
  completion: number,
  over: Record<string, unknown> = {},
) => ({
  k: 'usage',
  run,
  at,
  api: model.startsWith('wandb-artifact:') ? 'training' : 'inference',
  model,
  purpose: 'sample',
  prompt_tokens: prompt,
  completion_tokens: completion,
  samples: 1,
  ...over,
});

const CKPT = 'wandb-artifact:///team/proj/agent-001:step3';

/** Two rollouts of one file (the second a --resume), a judge, an eval on another day, a chat of an unpriced model. */
function seed(env: Env): void {
  writeFileSync(
    join(env.AIP_CONFIG_DIR, 'models.json'),
    JSON.stringify({
      models: [
        {
          id: 'model-7',
          entity: 'team',
          project: 'proj',
          name: 'agent-001',
          base_model: 'OpenPipe/Qwen3-14B-Instruct',
          base_url: 'http://127.0.0.1:4010/v1',
          created_at: '2026-11-18T09:00:00Z',
        },
      ],
    }),
  );
  command(env, { command: 'rollouts', at: '2026-11-20T10:00:00.000Z' }, (run) => [
    { k: 'note', run, at: '2026-11-20T10:00:00.000Z', ref: '/work/out.jsonl', model: CKPT },
    answer(run, '2026-11-20T10:00:01.000Z', CKPT, 1_000_000, 100_000, { samples: 4 }),
    answer(run, '2026-11-20T10:00:02.000Z', 'openai/gpt-oss-20b', 2000, 10, { purpose: 'judge' }),
  ]);
  command(env, { command: 'rollouts', at: '2026-11-20T11:00:00.000Z' }, (run) => [
    { k: 'note', run, at: '2026-11-20T11:00:00.000Z', ref: '/work/out.jsonl' },
    answer(run, '2026-11-20T11:00:01.000Z', CKPT, 1_000_000, 0, { samples: 2 }),
  ]);
  command(env, { command: 'train rl', at: '2026-11-21T08:00:00.000Z' }, (run) => [
    answer(run, '2026-11-21T08:00:01.000Z', CKPT, 500, 50, { job: 'job-1' }),
  ]);
  command(env, { command: 'chat', at: '2026-11-22T08:00:00.000Z' }, (run) => [
    answer(run, '2026-11-22T08:00:01.000Z', 'meta-llama/Llama-3.1-8B-Instruct', 30, 7, { purpose: 'chat' }),
  ]);
}

async function usageJson(env: Env, args: string) {
  const result = await runCli(`usage ${args} --json`, { env });
  expect(result.stderr).toBe('');
  expect(result.code).toBe(0);
  return JSON.parse(result.stdout);
}

describe('aip usage', () => {
  it('sums by model, pricing a checkpoint as its base model, the unpriced model as unknown', async () => {
    const env = envFor();
    seed(env);
    const report = await usageJson(env, '');
    expect(report.by).toBe('model');
    expect(report.groups.map((g: { key: string; requests: number }) => [g.key, g.requests])).toEqual([
      [CKPT, 3],
      ['openai/gpt-oss-20b', 1],
      ['meta-llama/Llama-3.1-8B-Instruct', 1],
    ]);
    const [ckpt, judge, chat] = report.groups;
    expect(ckpt).toMatchObject({ samples: 7, prompt_tokens: 2_000_500, completion_tokens: 100_050 });
    expect(ckpt.cost).toBeCloseTo((2_000_500 * 0.05 + 100_050 * 0.22) / 1e6, 12);
    expect(judge.cost).toBeCloseTo((2000 * 0.05 + 10 * 0.2) / 1e6, 12);
    expect(chat).toMatchObject({
      cost: null,
      priced_requests: 0,
      unpriced_models: ['meta-llama/Llama-3.1-8B-Instruct'],
    });
    // The total is the sum of every answer's usage fields.
    expect(report.total).toMatchObject({
      requests: 5,
      samples: 9,
      prompt_tokens: 1_000_000 + 2000 + 1_000_000 + 500 + 30,
      completion_tokens: 100_000 + 10 + 0 + 50 + 7,
      cost: null,
      unpriced_models: ['meta-llama/Llama-3.1-8B-Instruct'],
    });
    expect(report.total.priced_cost).toBeCloseTo(ckpt.cost + judge.cost, 12);
    const ckptPrice = report.prices.find((p: { model: string }) => p.model === CKPT);
    expect(ckptPrice.price).toMatchObject({
      base_model: 'OpenPipe/Qwen3-14B-Instruct',
      source: 'https://wandb.ai/site/inference/cw_openpipe_qwen3-14b-instruct',
    });
    expect(report.other_costs.map((c: { kind: string; cost: number | null }) => [c.kind, c.cost])).toEqual([
      ['training', 0],
      ['storage', null],
    ]);
  });

  it('joins the invocations --resume carried on under --by run; --by command, job and day', async () => {
    const env = envFor();
    seed(env);
    const keys = async (by: string) =>
      (await usageJson(env, `--by ${by}`)).groups.map((g: { key: string; requests: number }) => [
        g.key,
        g.requests,
      ]);
    const runs = await keys('run');
    expect(runs[0]).toEqual(['/work/out.jsonl', 3]);
    expect(runs.slice(1).map((r: [string, number]) => r[1])).toEqual([1, 1]);
    expect(runs.slice(1).every((r: [string, number]) => /^#\d+$/.test(r[0]))).toBe(true);
    expect(await keys('command')).toEqual([
      ['rollouts', 3],
      ['train rl', 1],
      ['chat', 1],
    ]);
    expect(await keys('job')).toEqual([
      ['-', 4],
      ['job-1', 1],
    ]);
    expect(await keys('day')).toEqual([
      ['2026-11-20', 3],
      ['2026-11-21', 1],
      ['2026-11-22', 1],
    ]);
  });

  it('takes the answers of a time range: --since and --until', async () => {
    const env = envFor();
    seed(env);
    const report = await usageJson(env, '--since 2026-11-21 --until 2026-11-22');
    expect(report.total.requests).toBe(1);
    expect(report.since).toBe('2026-11-21T00:00:00.000Z');
    const bad = await runCli('usage --since yesterday', { env });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/expected an age/);
    const badBy = await runCli('usage --by week', { env });
    expect(badBy.code).toBe(2);
  });

  it('prints a table with a total on a terminal, and the groups alone as TSV when piped', async () => {
    const env = envFor();
    seed(env);
    const tty = await runCli('usage --by command', { env, stdoutTTY: true, columns: 200 });
    expect(tty.code).toBe(0);
    const lines = stripVTControlCharacters(tty.stdout).trimEnd().split('\n');
    expect(lines[0]).toMatch(/^COMMAND\s+REQUESTS\s+SAMPLES\s+TOKENS IN\s+TOKENS OUT\s+COST$/);
    expect(lines.at(-1)).toMatch(/^total\s+5\s+9\s+2,002,530\s+100,067\s+≥ \$0\.\d{4} \(1 model unpriced\)$/);
    expect(lines.find((l) => l.startsWith('chat'))).toMatch(/unknown$/);
    expect(tty.stderr).toMatch(/no price is known for meta-llama\/Llama-3\.1-8B-Instruct/);
    const piped = await runCli('usage --by command', { env });
    expect(
      piped.stdout
        .split('\n')
        .filter(Boolean)
        .map((l) => l.split('\t')[0]),
    ).toEqual(['rollouts', 'train rl', 'chat']);
    expect(piped.stdout.split('\n')[0]!.split('\t')).toHaveLength(6);
  });

  it('answers --jq through the global flags', async () => {
    const env = envFor();
    seed(env);
    const result = await runCli(['usage', '--by', 'day', '--jq', '.groups | length'], { env });
    expect(result.code).toBe(0);
    expect(result.stdout.trim()).toBe('3');
  });

  it('says so on stderr when the history holds no usage, and prints nothing on stdout', async () => {
    const env = envFor();
    const result = await runCli('usage', { env });
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/No usage in the history yet/);
    expect((await usageJson(env, '')).total).toMatchObject({ requests: 0, cost: 0 });
  });

  it('uses the prices file over the built-in table; a bad one is exit 2 naming it and the entry', async () => {
    const env = envFor();
    seed(env);
    const file = join(env.AIP_CONFIG_DIR, 'prices.json');
    writeFileSync(
      file,
      JSON.stringify({
        models: { 'meta-llama/Llama-3.1-8B-Instruct': { input_per_mtok: 1, output_per_mtok: 1 } },
      }),
    );
    const report = await usageJson(env, '');
    expect(report.total.cost).not.toBeNull();
    expect(report.groups[2].cost).toBeCloseTo(37 / 1e6, 12);
    writeFileSync(file, '{"models": {"constructor": {"input_per_mtok": -1, "output_per_mtok": 0}}}');
    const bad = await runCli('usage', { env });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain(file);
    expect(bad.stderr).toContain('"constructor"');
  });

  it('shows what the journal holds without letting it drive the terminal', async () => {
    const env = envFor();
    command(env, { command: 'chat', at: '2026-11-20T10:00:00.000Z' }, (run) => [
      answer(run, '2026-11-20T10:00:01.000Z', 'evil\u001b]52;c;aGk=\u0007/model', 1, 1),
    ]);
    const result = await runCli('usage', { env, stdoutTTY: true, columns: 200 });
    expect(result.code).toBe(0);
    expect(result.stdout).not.toContain('\u001b]52');
    expect(result.stdout).toContain('^[]52;c;aGk=^G');
    expect(result.stderr).not.toContain('\u001b]52');
  });
});

describe('aip usage prices', () => {
  it('lists the built-in prices with sources and dates, and the user file entries with its path', async () => {
    const env = envFor();
    const file = join(env.AIP_CONFIG_DIR, 'prices.json');
    writeFileSync(
      file,
      JSON.stringify({ models: { 'my/model': { input_per_mtok: 3, output_per_mtok: 4, note: 'invoice' } } }),
    );
    const json = JSON.parse((await runCli('usage prices --json', { env })).stdout);
    expect(json.models.find((m: { model: string }) => m.model === 'openai/gpt-oss-20b')).toMatchObject({
      origin: 'built-in',
      source: 'https://wandb.ai/site/inference/openai-gpt-oss-20b',
      read_on: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/),
    });
    expect(json.models.find((m: { model: string }) => m.model === 'my/model')).toMatchObject({
      origin: 'file',
      source: file,
      note: 'invoice',
    });
    expect(json.prices_file).toEqual({ path: file, found: true });
    expect(json.training).toMatchObject({ input_per_mtok: 0, output_per_mtok: 0 });
    expect(json.storage.price).toBeNull();
    const tty = await runCli('usage prices', { env, stdoutTTY: true, columns: 200 });
    expect(tty.code).toBe(0);
    expect(stripVTControlCharacters(tty.stdout)).toMatch(
      /openai\/gpt-oss-20b\s+\$0\.05\s+\$0\.2\s+https:\/\/wandb\.ai/,
    );
    expect(stripVTControlCharacters(tty.stdout)).toMatch(
      /my\/model\s+\$3\s+\$4\s+.*prices\.json \(invoice\)/,
    );
    expect(tty.stderr).toMatch(/priced as their base model/);
  });
});
