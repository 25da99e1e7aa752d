// aip usage against what a server says it charged: the totals of `aip usage` are the sums of the
// usage fields of the answers, as the emulator's request record holds them.

import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useEmulator } from '../helpers/emulator.js';

const t = useEmulator();
const { emu, run } = t;

describe('aip usage against the emulator', () => {
  it('totals exactly what the answers said they used', async () => {
    for (const prompt of ['hello', 'write a haiku about tokens', 'count to five']) {
      const r = await run(['chat', '-m', 'openai/gpt-oss-20b', prompt]);
      expect(r.code, r.stderr).toBe(0);
    }
    const charged = (await emu.requests({ method: 'POST' }))
      .map((q) => q.usage)
      .filter((u): u is { prompt_tokens: number; completion_tokens: number } => !!u);
    expect(charged).toHaveLength(3);
    const r = await run('usage --json');
    expect(r.code, r.stderr).toBe(0);
    const { total, groups } = JSON.parse(r.stdout);
    expect(total.requests).toBe(3);
    expect(total.prompt_tokens).toBe(charged.reduce((n, u) => n + u.prompt_tokens, 0));
    expect(total.completion_tokens).toBe(charged.reduce((n, u) => n + u.completion_tokens, 0));
    expect(groups.map((g: { key: string }) => g.key)).toEqual(['openai/gpt-oss-20b']);
    expect(total.cost).toBeCloseTo((total.prompt_tokens * 0.05 + total.completion_tokens * 0.2) / 1e6, 12);
  });
});

describe('aip usage over rollouts, a judge, eval and streams', () => {
  it("by model, command and run: each total is the emulator's own count of what it answered", async () => {
    expect((await run('models create --name agent --base-model OpenPipe/Qwen3-14B-Instruct -q')).code).toBe(
      0,
    );
    const tasks = join(t.dir, 'tasks.jsonl');
    writeFileSync(
      tasks,
      `${Array.from({ length: 6 }, (_, i) => JSON.stringify({ id: `t${i}`, messages: [{ role: 'user', content: `q${i}` }], reference: 'You asked' })).join('\n')}\n`,
    );
    const out = join(t.dir, 'groups.jsonl');
    const judged = ['rollouts', '--model', 'agent', '--tasks', tasks, '-K', '2', '--seed', '1', '-o', out];
    // Stopped by a budget, then carried on: two invocations of one run.
    const stopped = await run([
      ...judged,
      '--reward',
      'judge:openai/gpt-oss-20b',
      '--max-total-tokens',
      '150',
    ]);
    expect(stopped.code, stopped.stderr).toBe(9);
    const resumed = await run([...judged, '--reward', 'judge:openai/gpt-oss-20b', '--resume']);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect((await run(['eval', '--model', 'agent', '--tasks', tasks, '--reward', 'contains'])).code).toBe(0);
    expect((await run(['chat', '--stream', '-m', 'openai/gpt-oss-20b', 'a streamed reply'])).code).toBe(0);

    const records = (await emu.requests({ method: 'POST' })).filter((q) => q.usage);
    const sums = new Map<string, { requests: number; prompt_tokens: number; completion_tokens: number }>();
    for (const q of records) {
      const model = (q.body as { model: string }).model;
      const s = sums.get(model) ?? { requests: 0, prompt_tokens: 0, completion_tokens: 0 };
      s.requests++;
      s.prompt_tokens += q.usage!.prompt_tokens;
      s.completion_tokens += q.usage!.completion_tokens;
      sums.set(model, s);
    }
    const byModel = JSON.parse((await run('usage --by model --json')).stdout) as {
      groups: Array<{ key: string; requests: number; prompt_tokens: number; completion_tokens: number }>;
    };
    expect(
      Object.fromEntries(
        byModel.groups.map((g) => [
          g.key,
          { requests: g.requests, prompt_tokens: g.prompt_tokens, completion_tokens: g.completion_tokens },
        ]),
      ),
    ).toEqual(Object.fromEntries(sums));

    const byCommand = JSON.parse((await run('usage --by command --json')).stdout) as {
      groups: Array<{ key: string; requests: number }>;
    };
    expect(new Set(byCommand.groups.map((g) => g.key))).toEqual(new Set(['rollouts', 'eval', 'chat']));
    // The stopped rollouts and its --resume are one run: the groups file they share.
    const byRun = JSON.parse((await run('usage --by run --json')).stdout) as {
      groups: Array<{ key: string; requests: number }>;
    };
    const rolloutRun = byRun.groups.find((g) => g.key === out);
    const evalRequests = byCommand.groups.find((g) => g.key === 'eval')!.requests;
    // Every sample and judge request of the two rollouts invocations: all but eval's and the chat's.
    expect(rolloutRun?.requests).toBe(records.length - evalRequests - 1);
    expect(byCommand.groups.find((g) => g.key === 'rollouts')?.requests).toBe(rolloutRun?.requests);
  });
});
