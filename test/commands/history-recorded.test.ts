// The history end to end, in-process against the emulator: commands that talk to the platform are
// journaled as they run (src/history/recorder.ts), and `aip history` folds and shows them: what was
// created, each answer's tokens as the answer gave them, how each ended.

import { describe, expect, it } from 'vitest';
import { useEmulator } from '../helpers/emulator.js';

const t = useEmulator({ runOptions: { sleepCap: 5 } });

describe('aip history of real commands', () => {
  it('shows what models create and chat did, newest first, with the tokens of the answer', async () => {
    const env = { ...t.env, AIP_EMULATOR_SQLITE: 'wasm' };
    const created = await t.run(
      'models create --name hist-agent --base-model OpenPipe/Qwen3-14B-Instruct --json',
      { env },
    );
    expect(created.code).toBe(0);
    const model = JSON.parse(created.stdout) as { id: string };
    const chat = await t.run(['chat', '-m', 'openai/gpt-oss-20b', '--json', 'How did it go?'], { env });
    expect(chat.code).toBe(0);
    const answer = JSON.parse(chat.stdout) as {
      usage: { prompt_tokens: number; completion_tokens: number };
    };
    expect(answer.usage.prompt_tokens).toBeGreaterThan(0);
    const missing = await t.run('jobs get 00000000-0000-0000-0000-000000000000', { env });
    expect(missing.code).toBe(3);

    const listed = await t.run('history --json', { env });
    expect(listed.stderr).toBe('');
    const rows = JSON.parse(listed.stdout) as Array<Record<string, unknown>>;
    expect(rows.map((row) => row.command)).toEqual(['jobs get', 'chat', 'models create']);
    expect(rows[0]).toMatchObject({ exit: 3, error: expect.stringMatching(/./) });
    expect(rows[2]).toMatchObject({ exit: 0, created: [model.id] });
    expect(rows[1]).toMatchObject({
      exit: 0,
      requests: 1,
      prompt_tokens: answer.usage.prompt_tokens,
      completion_tokens: answer.usage.completion_tokens,
    });
    const shown = JSON.parse((await t.run(`history show ${rows[1]!.id} --json`, { env })).stdout);
    // Without history bodies, the prompt is kept as its length only (history/recorder.ts historyArgv).
    expect(shown.argv).toEqual(['chat', '-m', 'openai/gpt-oss-20b', '--json', '<14 characters>']);
    expect(shown.usage).toEqual([
      expect.objectContaining({ api: 'inference', purpose: 'chat', requests: 1 }),
    ]);
  });
});
