// The pace of chat replies sent whole (unstreamed_token_ms): each comes after as many token times as it
// has tokens, so a benchmark can give every completion a latency proportional to its length; none is
// written to a client that went away while it waited. Only lower bounds on time are asserted: a busy
// machine may always be slower.

import { describe, expect, it } from 'vitest';
import { startTestEmulator, useEmulator } from '../helpers/emulator.js';
import { waitFor } from '../helpers/wait.js';

const { emu } = useEmulator();

const hello = [{ role: 'user', content: 'Say hello to the emulator' }];

async function timedChat(body: Record<string, unknown>, api = 'inference') {
  const started = performance.now();
  const res = await fetch(`${emu.origin}/${api}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${emu.key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const completion = (await res.json()) as { usage: { completion_tokens: number } };
  return { status: res.status, completion, ms: performance.now() - started };
}

async function pace(body: Record<string, unknown>) {
  const res = await emu.control('POST', '/chat', body);
  expect(res.status).toBe(200);
  return res.body;
}

describe('the pace of unstreamed chat replies', () => {
  it('is none by default: whole replies come at once whatever the pace of streamed tokens', async () => {
    expect(await pace({ token_ms: 0 })).toEqual({ token_ms: 0, unstreamed_token_ms: 0 });
  });

  it('sends a reply of T tokens after T × N ms, on both APIs and for every choice', async () => {
    expect(await pace({ unstreamed_token_ms: 12 })).toEqual({ token_ms: 0, unstreamed_token_ms: 12 });
    try {
      const created = await emu.api('POST', '/preview/models', {
        project: 'p',
        name: 'm',
        base_model: 'OpenPipe/Qwen3-14B-Instruct',
      });
      expect(created.status).toBe(200);
      for (const [api, model] of [
        ['inference', 'openai/gpt-oss-20b'],
        ['training', 'wandb-artifact:///local/p/m'],
      ] as const) {
        for (const body of [
          { model, messages: hello, max_tokens: 10 },
          { model, messages: [{ role: 'user', content: 'What is 6 * 7?' }], n: 3 },
        ]) {
          const r = await timedChat(body, api);
          expect(r.status).toBe(200);
          const tokens = r.completion.usage.completion_tokens as number;
          expect(tokens).toBeGreaterThanOrEqual(10);
          // Timers may fire a millisecond early against performance.now(): a 2 ms allowance.
          expect({ api, tokens, atLeast: r.ms >= tokens * 12 - 2 }).toEqual({ api, tokens, atLeast: true });
        }
      }
    } finally {
      await pace({ unstreamed_token_ms: 0 });
    }
  });

  it('answers nobody who went away while the reply waited, and goes on serving', async () => {
    await pace({ unstreamed_token_ms: 1000 });
    try {
      const abort = new AbortController();
      const request = fetch(`${emu.origin}/inference/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${emu.key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'openai/gpt-oss-20b', messages: hello, max_tokens: 10 }),
        signal: abort.signal,
      });
      const records = () => emu.requests({ path: '/inference/v1/chat/completions' });
      // Gone while the reply waits (10 tokens, 10 s): once the emulator has the request, not after a
      // fixed time, which on a busy machine may pass before the request has even arrived.
      await waitFor(async () => (await records()).length > 0);
      abort.abort();
      await expect(request).rejects.toThrow();
      // The record is completed when the connection closes: no status, as nothing was answered.
      await waitFor(async () => (await records())[0]?.duration_ms != null);
      expect((await records())[0]).toMatchObject({ status: null, duration_ms: expect.any(Number) });
    } finally {
      await pace({ unstreamed_token_ms: 0 });
    }
    const after = await timedChat({ model: 'openai/gpt-oss-20b', messages: hello });
    expect(after.status).toBe(200);
  });

  it('is set with a whole number of ms, 0 to 60000 (422 otherwise, or when neither pace is given)', async () => {
    for (const body of [
      {},
      { unstreamed_token_ms: -1 },
      { unstreamed_token_ms: 1.5 },
      { token_ms: 0, unstreamed_token_ms: 'x' },
    ]) {
      const res = await emu.control('POST', '/chat', body);
      expect([body, res.status]).toEqual([body, 422]);
    }
    const detail = (await emu.control('POST', '/chat', {})).body as { detail: Array<{ loc: string[] }> };
    expect(detail.detail.map((d) => d.loc.join('.'))).toEqual(['body.token_ms', 'body.unstreamed_token_ms']);
    expect(await pace({ token_ms: 0, unstreamed_token_ms: 0 })).toEqual({
      token_ms: 0,
      unstreamed_token_ms: 0,
    });
  });
});

describe('the pace given at start', () => {
  it('is the emulator option unstreamedTokenMs (aip emulator --unstreamed-token-ms)', async () => {
    const paced = await startTestEmulator({ unstreamedTokenMs: 7 });
    try {
      expect((await paced.control('POST', '/chat', { token_ms: 0 })).body).toEqual({
        token_ms: 0,
        unstreamed_token_ms: 7,
      });
    } finally {
      await paced.close();
    }
  });
});
