// The emulated chat completions where the contract is strict or the platform's behaviour unknown:
// Training API chat answers JSON even to `stream: true` (its published document has no other answer)
// unless the emulator is told to stream; logprobs in the OpenAI shape, consistent with the text and
// usage; several choices; and the parameters the Inference API refuses with a 422.

import { describe, expect, it } from 'vitest';
import { type TestEmulator, useEmulator } from '../helpers/emulator.js';

// emu is reset before each test; streaming keeps its state for the whole file.
const { emu } = useEmulator();
const { emu: streaming } = useEmulator({ trainingChatStream: true, fresh: 'file' });

const hello = [{ role: 'user', content: 'Say hello to the emulator' }];
const MODEL = 'openai/gpt-oss-20b';

async function chat(target: TestEmulator, api: 'inference' | 'training', body: Record<string, unknown>) {
  const res = await fetch(`${target.origin}/${api}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${target.key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, type: res.headers.get('content-type'), text: await res.text() };
}

interface Chunk {
  choices: Array<{
    index: number;
    delta: { role?: string; content?: string };
    logprobs: { content: unknown[] } | null;
    finish_reason: string | null;
  }>;
}

/** The JSON chunks of an event stream, checked to end in [DONE]. */
function chunksOf(text: string): Chunk[] {
  const events = text
    .split('\n\n')
    .filter(Boolean)
    .map((e) => e.replace(/^data: /, ''));
  expect(events.at(-1)).toBe('[DONE]');
  return events.slice(0, -1).map((e) => JSON.parse(e));
}

/** A trained model on `target`, with checkpoints up to step 2, as a chat model name. */
async function trainedModel(target: TestEmulator): Promise<string> {
  const res = await target.api('POST', '/preview/models', {
    project: 'p',
    name: 'm',
    base_model: 'OpenPipe/Qwen3-14B-Instruct',
    return_existing: true,
  });
  const { id } = res.body as { id: string };
  await target.control('POST', `/models/${id}/checkpoints`, { count: 2 });
  return 'wandb-artifact:///local/p/m:step2';
}

describe('Training API chat and streaming', () => {
  it('answers stream: true with one JSON completion, as the published document says', async () => {
    const model = await trainedModel(emu);
    const whole = await chat(emu, 'training', { model, messages: hello });
    const asked = await chat(emu, 'training', { model, messages: hello, stream: true });
    expect([asked.status, asked.type]).toEqual([200, 'application/json']);
    const body = JSON.parse(asked.text);
    expect(body.object).toBe('chat.completion');
    expect(body.choices[0].message.content).toBe(JSON.parse(whole.text).choices[0].message.content);
  });

  it('streams server-sent events when started with --training-chat-stream', async () => {
    const model = await trainedModel(streaming);
    const whole = JSON.parse((await chat(streaming, 'training', { model, messages: hello })).text);
    const r = await chat(streaming, 'training', { model, messages: hello, stream: true });
    expect(r.type).toBe('text/event-stream');
    const text = chunksOf(r.text)
      .map((c) => c.choices[0]?.delta?.content ?? '')
      .join('');
    expect(text).toBe(whole.choices[0].message.content);
    await streaming.reset();
  });

  it('the Inference API streams whatever the flag says', async () => {
    const r = await chat(emu, 'inference', { model: MODEL, messages: hello, stream: true });
    expect(r.type).toBe('text/event-stream');
  });
});

describe('logprobs', () => {
  for (const api of ['inference', 'training'] as const) {
    it(`${api}: one entry per token, joining up to the text, with usage to match and top alternatives`, async () => {
      const model = api === 'training' ? await trainedModel(emu) : MODEL;
      const r = await chat(emu, api, { model, messages: hello, logprobs: true, top_logprobs: 3 });
      expect(r.status).toBe(200);
      const body = JSON.parse(r.text);
      const choice = body.choices[0];
      const entries = choice.logprobs.content as Array<{
        token: string;
        logprob: number;
        bytes: number[];
        top_logprobs: Array<{ token: string; logprob: number; bytes: number[] }>;
      }>;
      expect(choice.logprobs.refusal).toBeNull();
      expect(entries.map((e) => e.token).join('')).toBe(choice.message.content);
      expect(entries).toHaveLength(body.usage.completion_tokens);
      for (const entry of entries) {
        expect(entry.logprob).toBeLessThan(0);
        expect(entry.bytes).toEqual([...Buffer.from(entry.token, 'utf8')]);
        expect(entry.top_logprobs).toHaveLength(3);
        const ranked = entry.top_logprobs.map((t) => t.logprob);
        expect(ranked).toEqual([...ranked].sort((a, b) => b - a));
        expect(new Set(entry.top_logprobs.map((t) => t.token)).size).toBe(3);
        // The sampled token is listed wherever it ranks among the alternatives.
        const own = entry.top_logprobs.find((t) => t.token === entry.token);
        if (own) expect(own.logprob).toBe(entry.logprob);
        else expect(entry.logprob).toBeLessThan(ranked.at(-1)!);
        const mass = entry.top_logprobs.reduce((sum, t) => sum + Math.exp(t.logprob), 0);
        expect(mass + (own ? 0 : Math.exp(entry.logprob))).toBeLessThanOrEqual(1.000001);
      }
      const again = JSON.parse(
        (await chat(emu, api, { model, messages: hello, logprobs: true, top_logprobs: 3 })).text,
      );
      expect(again.choices[0].logprobs).toEqual(choice.logprobs);
    });
  }

  it('are null unless asked, and an empty list of alternatives with top_logprobs 0', async () => {
    const plain = JSON.parse((await chat(emu, 'inference', { model: MODEL, messages: hello })).text);
    expect(plain.choices[0].logprobs).toBeNull();
    const bare = JSON.parse(
      (await chat(emu, 'inference', { model: MODEL, messages: hello, logprobs: true })).text,
    );
    expect(
      bare.choices[0].logprobs.content.every((e: { top_logprobs: unknown[] }) => e.top_logprobs.length === 0),
    ).toBe(true);
  });

  it('come with each streamed token, the same as in the whole answer', async () => {
    const asked = { model: MODEL, messages: hello, logprobs: true, top_logprobs: 2, max_tokens: 8 };
    const whole = JSON.parse((await chat(emu, 'inference', asked)).text);
    const chunks = chunksOf((await chat(emu, 'inference', { ...asked, stream: true })).text);
    const streamed = chunks.flatMap((c) => c.choices[0]?.logprobs?.content ?? []);
    expect(streamed).toEqual(whole.choices[0].logprobs.content);
    expect(chunks[0]?.choices[0]?.logprobs).toBeNull();
  });

  it('on a model without them, and top_logprobs without logprobs or past 20, are a 422 naming the parameter', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ model: 'deepseek-ai/DeepSeek-V3.1', logprobs: true }, 'body.logprobs'],
      [{ model: MODEL, top_logprobs: 2 }, 'body.top_logprobs'],
      [{ model: MODEL, logprobs: false, top_logprobs: 2 }, 'body.top_logprobs'],
      [{ model: MODEL, logprobs: true, top_logprobs: 21 }, 'body.top_logprobs'],
    ];
    for (const [params, loc] of cases) {
      const r = await chat(emu, 'inference', { messages: hello, ...params });
      expect([JSON.stringify(params), r.status]).toEqual([JSON.stringify(params), 422]);
      expect(JSON.parse(r.text).detail.map((d: { loc: unknown[] }) => d.loc.join('.'))).toEqual([loc]);
    }
    // The model that lacks logprobs still answers without them.
    expect(
      (await chat(emu, 'inference', { model: 'deepseek-ai/DeepSeek-V3.1', messages: hello })).status,
    ).toBe(200);
  });
});

describe('several choices (n)', () => {
  it('samples each choice anew, counts every token in usage, and streams each by its index', async () => {
    const body = JSON.parse(
      (await chat(emu, 'inference', { model: MODEL, messages: hello, n: 3, logprobs: true })).text,
    );
    expect(body.choices.map((c: { index: number }) => c.index)).toEqual([0, 1, 2]);
    const texts = body.choices.map((c: { message: { content: string } }) => c.message.content);
    expect(new Set(texts).size).toBe(3);
    const single = JSON.parse((await chat(emu, 'inference', { model: MODEL, messages: hello })).text);
    expect(texts[0]).toBe(single.choices[0].message.content);
    const counted = body.choices.reduce(
      (sum: number, c: { logprobs: { content: unknown[] } }) => sum + c.logprobs.content.length,
      0,
    );
    expect(body.usage.completion_tokens).toBe(counted);
    const chunks = chunksOf(
      (await chat(emu, 'inference', { model: MODEL, messages: hello, n: 3, stream: true })).text,
    );
    const streamed = [0, 1, 2].map((i) =>
      chunks
        .flatMap((c) => c.choices)
        .filter((c) => c.index === i)
        .map((c) => c.delta.content ?? '')
        .join(''),
    );
    expect(streamed).toEqual(texts);
    expect((await chat(emu, 'inference', { model: MODEL, messages: hello, n: 0 })).status).toBe(422);
  });
});

describe('parameters the Inference API does not support', () => {
  it('refuses tools other than functions and unknown response formats with a 422 naming them', async () => {
    const tools = [
      { type: 'function', function: { name: 'f' } },
      { type: 'custom', custom: { name: 'g' } },
    ];
    const r = await chat(emu, 'inference', {
      model: MODEL,
      messages: hello,
      tools,
      response_format: { type: 'xml' },
    });
    expect(r.status).toBe(422);
    expect(
      JSON.parse(r.text).detail.map((d: { loc: unknown[]; type: string }) => [d.loc.join('.'), d.type]),
    ).toEqual([
      ['body.tools.1.type', 'unsupported_parameter'],
      ['body.response_format.type', 'unsupported_parameter'],
    ]);
    for (const format of ['text', 'json_object']) {
      const ok = await chat(emu, 'inference', {
        model: MODEL,
        messages: hello,
        response_format: { type: format },
      });
      expect([format, ok.status]).toEqual([format, 200]);
    }
  });

  it('the Training API passes what it does not know on (its request is an open object)', async () => {
    const model = await trainedModel(emu);
    const r = await chat(emu, 'training', {
      model,
      messages: hello,
      tools: [{ type: 'custom', custom: { name: 'g' } }],
      chat_template_kwargs: { enable_thinking: false },
    });
    expect(r.status).toBe(200);
  });
});

describe('cursors', () => {
  it('an empty after means from the start, for checkpoints and for events', async () => {
    const auth = { authorization: `Bearer ${emu.key}` };
    const created = await emu.api('POST', '/preview/models', {
      project: 'p',
      name: 'cursor',
      base_model: 'OpenPipe/Qwen3-14B-Instruct',
    });
    const { id } = created.body as { id: string };
    const page = async (path: string) => {
      const res = await fetch(`${emu.urls.base}${path}`, { headers: auth });
      return {
        status: res.status,
        body: (await res.json()) as { data: Array<{ id: string }>; last_id: string },
      };
    };
    const first = await page(`/preview/models/${id}/checkpoints`);
    expect(await page(`/preview/models/${id}/checkpoints?after=`)).toEqual(first);
    const job = await emu.api('POST', '/preview/sft-training-jobs', {
      model_id: id,
      training_data_url: 'wandb-artifact:///local/p/d:v0',
    });
    const { id: jobId } = job.body as { id: string };
    const events = await page(`/preview/training-jobs/${jobId}/events`);
    const fromEmpty = await page(`/preview/training-jobs/${jobId}/events?after=`);
    expect(fromEmpty.status).toBe(200);
    expect(fromEmpty.body.data.slice(0, events.body.data.length)).toEqual(events.body.data);
    // An empty page hands back last_id "" — which, passed on, starts over rather than failing.
    const none = await page(`/preview/training-jobs/00000000-0000-4000-8000-000000000000/events?after=`);
    expect(none.status).toBe(404);
  });
});
