// The emulated chat completions: OpenAI shapes, deterministic text with real counts, max_tokens,
// server-sent events, checkpoints as models on the Training API, and errors in each API's shape.

import { describe, expect, it } from 'vitest';
import { useEmulator } from '../helpers/emulator.js';

const { emu } = useEmulator();

async function post(url: string, body: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(url, {
    method: 'POST',
    headers: { authorization: `Bearer ${emu.key}`, 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

const chat = (body: unknown, api = 'inference', suffix = '') =>
  post(`${emu.origin}/${api}/v1/chat/completions${suffix}`, body);
const hello = [{ role: 'user', content: 'Say hello to the emulator' }];

describe('chat completions', () => {
  it('answer in the OpenAI shape with text that depends on the messages, and real counts', async () => {
    const r = await chat({
      model: 'openai/gpt-oss-20b',
      messages: hello,
      temperature: 0.2,
      top_p: 0.9,
      logprobs: false,
    });
    expect(r.status).toBe(200);
    const body = JSON.parse(r.text);
    expect(body).toMatchObject({
      id: expect.stringMatching(/^chatcmpl-/),
      object: 'chat.completion',
      model: 'openai/gpt-oss-20b',
    });
    const text = body.choices[0].message.content as string;
    expect(body.choices[0]).toMatchObject({
      index: 0,
      finish_reason: 'stop',
      message: { role: 'assistant' },
    });
    expect(text).toMatch(/^You asked about "Say hello to the emulator"\. /);
    expect(body.usage.completion_tokens).toBe(text.match(/\s*\S+/g)!.length);
    expect(body.usage.total_tokens).toBe(body.usage.prompt_tokens + body.usage.completion_tokens);
    const again = JSON.parse(
      (await chat({ model: 'openai/gpt-oss-20b', messages: hello, temperature: 0.2 })).text,
    );
    expect(again.choices[0].message.content).toBe(text);
    const other = JSON.parse(
      (await chat({ model: 'openai/gpt-oss-20b', messages: [{ role: 'user', content: 'Something else' }] }))
        .text,
    );
    expect(other.choices[0].message.content).not.toBe(text);
  });

  it('stops at max_tokens (or max_completion_tokens) with finish_reason length', async () => {
    for (const limit of [{ max_tokens: 3 }, { max_completion_tokens: 3 }]) {
      const body = JSON.parse((await chat({ model: 'openai/gpt-oss-20b', messages: hello, ...limit })).text);
      expect(body.choices[0].finish_reason).toBe('length');
      expect(body.usage.completion_tokens).toBe(3);
    }
  });

  it('streams server-sent chunks, a usage chunk when asked, then [DONE]', async () => {
    const plain = JSON.parse((await chat({ model: 'openai/gpt-oss-20b', messages: hello })).text);
    const r = await chat({
      model: 'openai/gpt-oss-20b',
      messages: hello,
      stream: true,
      stream_options: { include_usage: true },
    });
    expect(r.headers.get('content-type')).toBe('text/event-stream');
    const events = r.text
      .split('\n\n')
      .filter(Boolean)
      .map((e) => e.replace(/^data: /, ''));
    expect(events.at(-1)).toBe('[DONE]');
    const chunks = events.slice(0, -1).map((e) => JSON.parse(e));
    expect(chunks.every((c) => c.object === 'chat.completion.chunk')).toBe(true);
    expect(chunks[0].choices[0].delta).toEqual({ role: 'assistant', content: '' });
    const text = chunks.map((c) => c.choices[0]?.delta?.content ?? '').join('');
    expect(text).toBe(plain.choices[0].message.content);
    expect(chunks.at(-2).choices[0].finish_reason).toBe('stop');
    expect(chunks.at(-1)).toMatchObject({ choices: [], usage: plain.usage });
    const noUsage = await chat({ model: 'openai/gpt-oss-20b', messages: hello, stream: true });
    expect(noUsage.text).not.toContain('"usage"');
  });

  it('serves trained checkpoints on the Training API (and its trailing-slash path)', async () => {
    const model = JSON.parse(
      (
        await post(`${emu.urls.base}/preview/models`, {
          project: 'p',
          name: 'm',
          base_model: 'OpenPipe/Qwen3-14B-Instruct',
        })
      ).text,
    );
    await emu.control('POST', `/models/${model.id}/checkpoints`, { count: 2 });
    for (const [name, status] of [
      ['wandb-artifact:///local/p/m:step2', 200],
      ['wandb-artifact:///local/p/m', 200],
      ['wandb-artifact:///local/p/m:latest', 200],
      ['wandb-artifact:///local/p/m:step9', 404],
      ['wandb-artifact:///local/p/other', 404],
      ['openai/gpt-oss-20b', 404],
    ] as const) {
      expect([name, (await chat({ model: name, messages: hello }, 'training')).status]).toEqual([
        name,
        status,
      ]);
    }
    expect(
      (await chat({ model: 'wandb-artifact:///local/p/m:step1', messages: hello }, 'training', '/')).status,
    ).toBe(200);
    // The Inference API serves trained LoRAs by the same URI.
    expect((await chat({ model: 'wandb-artifact:///local/p/m:step1', messages: hello })).status).toBe(200);
  });

  it("answers errors in each API's shape: 422 for a bad request, 404 for an unknown model, 401 without a key", async () => {
    const missing = await chat({ messages: hello });
    expect(missing.status).toBe(422);
    expect(JSON.parse(missing.text).detail).toEqual([
      { type: 'missing', loc: ['body', 'model'], msg: 'Field required' },
    ]);
    const badMessage = await chat({
      model: 'openai/gpt-oss-20b',
      messages: [{ role: 'robot', content: 'x' }],
    });
    expect(JSON.parse(badMessage.text).detail[0].loc).toEqual(['body', 'messages', 0, 'role']);
    expect(JSON.parse((await chat({ model: 'nope', messages: hello })).text)).toEqual({
      error: { message: 'The model `nope` does not exist', type: 'not_found_error', code: 'model_not_found' },
    });
    expect(
      JSON.parse((await chat({ model: 'wandb-artifact:///a/b/c', messages: hello }, 'training')).text),
    ).toEqual({
      detail: 'Model wandb-artifact:///a/b/c not found',
    });
    const anonymous = await fetch(`${emu.origin}/inference/v1/chat/completions`, {
      method: 'POST',
      body: '{}',
    });
    expect(anonymous.status).toBe(401);
  });

  it('checks the parameters it knows on both APIs (422 with every problem), and ignores the rest', async () => {
    for (const api of ['inference', 'training']) {
      const bad = await chat(
        {
          model: 'openai/gpt-oss-20b',
          messages: [],
          max_tokens: 0,
          temperature: 'abc',
          top_p: 2,
          stream: 'yes',
          some_new_parameter: { anything: true },
        },
        api,
      );
      expect(bad.status).toBe(422);
      const problems = JSON.parse(bad.text).detail.map((d: { loc: unknown[]; type: string }) => [
        d.loc.join('.'),
        d.type,
      ]);
      expect(problems).toEqual([
        ['body.messages', 'too_short'],
        ['body.stream', 'bool_type'],
        ['body.temperature', 'float_type'],
        ['body.top_p', 'less_than_equal'],
        ['body.max_tokens', 'greater_than_equal'],
      ]);
      const wizard = await chat(
        { model: 'openai/gpt-oss-20b', messages: [{ role: 'wizard', content: 'x' }] },
        api,
      );
      expect(wizard.status).toBe(422);
    }
    const fine = await chat(
      { model: 'openai/gpt-oss-20b', messages: hello, max_tokens: null, seed: 7, logit_bias: {} },
      'inference',
      '/',
    );
    expect(fine.status).toBe(200);
  });

  it('records the OpenAI-Project header of each request', async () => {
    await post(
      `${emu.origin}/inference/v1/chat/completions`,
      { model: 'openai/gpt-oss-20b', messages: hello },
      { 'openai-project': 'team/proj' },
    );
    const [record] = await emu.requests({ path: '/inference/v1/chat/completions' });
    expect(record?.headers['openai-project']).toBe('team/proj');
  });

  it('paces streamed tokens as told', async () => {
    expect((await emu.control('POST', '/chat', { token_ms: 15 })).status).toBe(200);
    try {
      const started = performance.now();
      await chat({ model: 'openai/gpt-oss-20b', messages: hello, stream: true, max_tokens: 10 });
      expect(performance.now() - started).toBeGreaterThanOrEqual(140);
    } finally {
      await emu.control('POST', '/chat', { token_ms: 0 });
    }
    expect((await emu.control('POST', '/chat', { token_ms: -1 })).status).toBe(422);
  });
});
