// Budgets of rollouts, eval and train rl (--max-total-tokens, --max-cost) on the emulator: a run
// stops within one request of the limit, keeps what it wrote, says how to carry on, and --resume
// does; what aip counts is what the emulator's request record says it answered.

import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import type { RequestRecord } from '../../src/emulator/index.js';
import { useEmulator } from '../helpers/emulator.js';
import { readJsonLines } from '../helpers/json-lines.js';

const t = useEmulator();
const { emu, run } = t;
const CHAT = '/training/v1/chat/completions';

type Group = { metadata: { task_id: string } };

let tasks: string;
const TASK_COUNT = 12;

beforeEach(async () => {
  await run('models create --name agent --base-model OpenPipe/Qwen3-14B-Instruct -q');
  tasks = join(t.dir, 'tasks.jsonl');
  const lines = Array.from({ length: TASK_COUNT }, (_, i) =>
    JSON.stringify({
      id: `t${i}`,
      messages: [{ role: 'user', content: `Question ${i}: ${'why '.repeat(i % 4)}?` }],
      reference: 'You asked about',
    }),
  );
  writeFileSync(tasks, `${lines.join('\n')}\n`);
});

/** The usage the emulator answered chat requests with: what a client was charged. */
async function charged(
  path = CHAT,
): Promise<{ requests: number; tokens: number; largest: number; records: RequestRecord[] }> {
  const records = (await emu.requests({ method: 'POST', path })).filter((r) => r.usage);
  const sizes = records.map((r) => r.usage!.prompt_tokens + r.usage!.completion_tokens);
  return {
    requests: records.length,
    tokens: sizes.reduce((a, b) => a + b, 0),
    largest: Math.max(0, ...sizes),
    records,
  };
}

/** The run of these tests; `--reward contains` unless the flags give another. */
const rollouts = (out: string, ...flags: string[]) => [
  'rollouts',
  '--model',
  'agent',
  '--tasks',
  tasks,
  ...(flags.includes('--reward') ? [] : ['--reward', 'contains']),
  '-K',
  '3',
  '--seed',
  '5',
  '--concurrency',
  '6',
  '-o',
  out,
  ...flags,
];

describe('budgets', () => {
  it('--max-total-tokens stops rollouts within one request of the limit, keeps whole groups, and --resume carries on', async () => {
    const out = join(t.dir, 'groups.jsonl');
    const limit = 900;
    const r = await run(rollouts(out, '--max-total-tokens', String(limit)));
    expect(r.code).toBe(9);
    expect(r.stderr).toMatch(
      /budget reached: \d+ requests used \d+ of --max-total-tokens 900 tokens; no more requests were sent/,
    );
    expect(r.stderr).toContain(`carry on with: aip rollouts --model agent --tasks ${tasks} --output ${out}`);
    expect(r.stderr).toMatch(/--max-total-tokens 900 --seed 5 --resume/);
    const spent = await charged();
    // Less than a group (3 samples) of room left; past the limit only by what a request outgrew.
    expect(spent.tokens + 3 * spent.largest).toBeGreaterThan(limit);
    expect(spent.tokens).toBeLessThanOrEqual(limit + 3 * spent.largest);
    // Every sample paid for is in a group written; some tasks are left for the resume.
    const written = readJsonLines<Group>(out);
    expect(written.length).toBeGreaterThan(0);
    expect(written.length).toBeLessThan(TASK_COUNT);
    expect(spent.requests).toBe(written.length * 3);

    const resumed = await run(rollouts(out, '--resume', '--json'));
    expect(resumed.code).toBe(0);
    const all = readJsonLines<Group>(out).map((g) => g.metadata.task_id);
    expect(new Set(all).size).toBe(TASK_COUNT);
    expect(all.length).toBe(TASK_COUNT);
    // What the resumed invocation says it spent is what the emulator answered it.
    const after = await charged();
    const summary = JSON.parse(resumed.stdout) as {
      spent: { requests: number; prompt_tokens: number; completion_tokens: number };
    };
    expect(summary.spent.requests).toBe(after.requests - spent.requests);
    expect(summary.spent.prompt_tokens + summary.spent.completion_tokens).toBe(after.tokens - spent.tokens);
  });

  it('groups larger than the concurrency: a group begun is sampled whole, whenever the budget is reached', async () => {
    const out = join(t.dir, 'wide.jsonl');
    // Given again, the last -K and --concurrency win: 8 samples a group, 16 requests at once.
    const r = await run(rollouts(out, '-K', '8', '--concurrency', '16', '--max-total-tokens', '1500'));
    expect(r.code, r.stderr).toBe(9);
    const written = readJsonLines<Group>(out).length;
    expect(written).toBeGreaterThan(0);
    expect((await charged()).requests).toBe(written * 8);
  });

  it('with a judge, every sample and verdict paid for is in a group written, and --resume pays for none twice', async () => {
    const out = join(t.dir, 'judged.jsonl');
    const judged = (...flags: string[]) =>
      run(rollouts(out, '--reward', 'judge:openai/gpt-oss-20b', ...flags));
    const stopped = await judged('--max-total-tokens', '1500');
    expect(stopped.code, stopped.stderr).toBe(9);
    const written = readJsonLines<Group>(out).length;
    expect(written).toBeGreaterThan(0);
    expect(written).toBeLessThan(TASK_COUNT);
    const samples = (await charged()).requests;
    const verdicts = (await charged('/inference/v1/chat/completions')).requests;
    expect([samples, verdicts]).toEqual([written * 3, written * 3]);

    expect((await judged('--resume')).code).toBe(0);
    expect((await charged()).requests).toBe(TASK_COUNT * 3);
    expect((await charged('/inference/v1/chat/completions')).requests).toBe(TASK_COUNT * 3);
  });

  it('--max-cost is refused, with nothing sent, when a model the run asks has no price', async () => {
    const out = join(t.dir, 'groups.jsonl');
    await emu.control('DELETE', '/requests');
    // The judge's model has no published price (src/usage/price-table.ts).
    const refused = await run(
      rollouts(out, '--max-cost', '0.01', '--reward', 'judge:meta-llama/Llama-3.1-8B-Instruct'),
    );
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(
      /--max-cost: no price is known for meta-llama\/Llama-3.1-8B-Instruct \(the inference API\)/,
    );
    expect(await emu.requests()).toEqual([]);
  });

  it('--max-cost stops at the price of the base model, or at the price a prices file gives', async () => {
    // The checkpoint is billed as its base model, OpenPipe/Qwen3-14B-Instruct: $0.05 in, $0.22 out.
    const builtIn = await run(rollouts(join(t.dir, 'a.jsonl'), '--max-cost', '0.00005'));
    expect(builtIn.code).toBe(9);
    const costsAt = (records: RequestRecord[], input: number, output: number) =>
      records.map((x) => (x.usage!.prompt_tokens * input + x.usage!.completion_tokens * output) / 1e6);
    // Within a group (3 requests) of the limit.
    const within = (costs: number[], limit: number) => {
      const cost = costs.reduce((a, b) => a + b, 0);
      expect(costs.length % 3).toBe(0);
      expect(cost).toBeLessThanOrEqual(limit + 3 * Math.max(...costs));
      expect(cost + 3 * Math.max(...costs)).toBeGreaterThan(limit);
    };
    within(costsAt((await charged()).records, 0.05, 0.22), 0.00005);
    expect(builtIn.stderr).toMatch(/of --max-cost 0\.00005/);

    await emu.control('DELETE', '/requests');
    const prices = join(t.dir, 'prices.json');
    writeFileSync(
      prices,
      JSON.stringify({
        models: { 'wandb-artifact:///local/demo/agent': { input_per_mtok: 10, output_per_mtok: 30 } },
      }),
    );
    const own = await run(rollouts(join(t.dir, 'b.jsonl'), '--max-cost', '0.005'), {
      env: { AIP_PRICES_FILE: prices },
    });
    expect(own.code).toBe(9);
    within(costsAt((await charged()).records, 10, 30), 0.005);
  });

  it('eval says what each checkpoint spent, in its table and its JSON, as the emulator counted it', async () => {
    const r = await run([
      'eval',
      '--model',
      'agent',
      '--tasks',
      tasks,
      '--reward',
      'contains',
      '-K',
      '2',
      '--json',
    ]);
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.stdout) as {
      checkpoints: Array<{ spent: { requests: number; prompt_tokens: number; completion_tokens: number } }>;
      spent: { requests: number; prompt_tokens: number; completion_tokens: number; cost: number | null };
    };
    const spent = await charged();
    expect(doc.spent.requests).toBe(spent.requests);
    expect(doc.spent.prompt_tokens + doc.spent.completion_tokens).toBe(spent.tokens);
    expect(doc.checkpoints[0]!.spent).toEqual({ ...doc.spent });

    const table = await run([
      'eval',
      '--model',
      'agent',
      '--tasks',
      tasks,
      '--reward',
      'contains',
      '-K',
      '2',
    ]);
    expect(table.code).toBe(0);
    const row = table.stdout.trim().split('\n').at(-1)!.split('\t');
    expect(row.at(-2)).toBe(String(spent.tokens));
  });

  it('eval stops at its budget and reports nothing for part of a task set', async () => {
    const r = await run([
      'eval',
      '--model',
      'agent',
      '--tasks',
      tasks,
      '--reward',
      'contains',
      '--max-total-tokens',
      '200',
    ]);
    expect(r.code).toBe(9);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('nothing is reported for part of a task set');
  });

  it('train rl keeps what each iteration spent in its run directory, over a budget stop and its --resume', async () => {
    const dir = join(t.dir, 'run');
    const flags = [
      'train',
      'rl',
      '--model',
      'agent',
      '--tasks',
      tasks,
      '--steps',
      '1',
      '--reward',
      'contains',
      '-K',
      '2',
    ];
    const stopped = await run([
      ...flags,
      '--run-dir',
      dir,
      '--max-total-tokens',
      '300',
      '--interval',
      '0.05',
    ]);
    expect(stopped.code).toBe(9);
    expect(stopped.stderr).toContain(`carry on with: aip train rl --resume ${dir} --max-total-tokens 300`);
    const first = JSON.parse(readFileSync(join(dir, 'run.json'), 'utf8')) as {
      iterations: Array<{ usage: { requests: number } }>;
    };
    expect(first.iterations[0]!.usage.requests).toBeGreaterThan(0);

    const resumed = await run(['train', 'rl', '--resume', dir, '--interval', '0.05', '--json']);
    expect(resumed.code).toBe(0);
    const doc = JSON.parse(resumed.stdout) as {
      spent: { requests: number; prompt_tokens: number; completion_tokens: number };
      iterations: Array<{ usage: { requests: number } }>;
    };
    const spent = await charged();
    expect(doc.spent.requests).toBe(spent.requests);
    expect(doc.spent.prompt_tokens + doc.spent.completion_tokens).toBe(spent.tokens);
    expect(doc.iterations[0]!.usage.requests).toBe(spent.requests);
  });
});
