// The official openai SDK, as a user's own code would drive it, against the emulator: chat plain and
// streamed, with logprobs, and the model list, on both APIs; its error classes for the statuses the
// platform documents. aip itself uses this SDK, but through its own fetch: here it runs as shipped.

import OpenAI from 'openai';
import { beforeAll, describe, expect, it } from 'vitest';
import { type TestEmulator, useEmulator } from '../helpers/emulator.js';

const { emu } = useEmulator({ fresh: 'file' });
const { emu: streaming } = useEmulator({ trainingChatStream: true, fresh: 'file' });
const ARTIFACT = 'wandb-artifact:///local/sdk/agent:step2';

/** A model with checkpoints 1 and 2 on `target`, made through the Training API. */
async function train(target: TestEmulator): Promise<void> {
  const res = await target.api('POST', '/preview/models', {
    project: 'sdk',
    name: 'agent',
    base_model: 'OpenPipe/Qwen3-14B-Instruct',
  });
  const { id } = res.body as { id: string };
  await target.control('POST', `/models/${id}/checkpoints`, { count: 2 });
}

beforeAll(async () => {
  await Promise.all([train(emu), train(streaming)]);
});

const client = (target: TestEmulator, api: 'inference' | 'training') =>
  new OpenAI({
    apiKey: target.key,
    baseURL: api === 'inference' ? target.urls.inference : target.urls.base,
    project: 'local/sdk',
    maxRetries: 0,
  });

const messages: OpenAI.Chat.ChatCompletionMessageParam[] = [{ role: 'user', content: 'Which step is best?' }];

/** Joins a stream the way an SDK user does, keeping the logprobs and the usage chunk. */
async function collect(stream: AsyncIterable<OpenAI.Chat.ChatCompletionChunk>) {
  let text = '';
  const logprobs: OpenAI.Chat.ChatCompletionTokenLogprob[] = [];
  let usage: OpenAI.CompletionUsage | undefined;
  let finish: string | null = null;
  for await (const chunk of stream) {
    const choice = chunk.choices[0];
    text += choice?.delta.content ?? '';
    logprobs.push(...(choice?.logprobs?.content ?? []));
    finish = choice?.finish_reason ?? finish;
    usage = chunk.usage ?? usage;
  }
  return { text, logprobs, usage, finish };
}

for (const api of ['inference', 'training'] as const) {
  const model = api === 'inference' ? 'meta-llama/Llama-3.1-8B-Instruct' : ARTIFACT;

  describe(`openai SDK on the ${api} API`, () => {
    it('chat: a completion with logprobs that spell the text and match the usage', async () => {
      const completion = await client(emu, api).chat.completions.create({
        model,
        messages,
        logprobs: true,
        top_logprobs: 2,
        max_tokens: 12,
      });
      const choice = completion.choices[0]!;
      expect(completion.object).toBe('chat.completion');
      expect(choice.finish_reason).toBe('length');
      const tokens = choice.logprobs!.content!;
      expect(tokens.map((t) => t.token).join('')).toBe(choice.message.content);
      expect(tokens).toHaveLength(completion.usage!.completion_tokens);
      expect(tokens.every((t) => t.top_logprobs.length === 2)).toBe(true);
    });

    it('chat streamed: the same text, logprobs and usage as the whole answer', async () => {
      const target = api === 'inference' ? emu : streaming;
      const sdk = client(target, api);
      const whole = await sdk.chat.completions.create({ model, messages, logprobs: true, top_logprobs: 1 });
      const stream = await sdk.chat.completions.create({
        model,
        messages,
        logprobs: true,
        top_logprobs: 1,
        stream: true,
        stream_options: { include_usage: true },
      });
      const streamed = await collect(stream);
      expect(streamed.text).toBe(whole.choices[0]!.message.content);
      expect(streamed.logprobs).toEqual(whole.choices[0]!.logprobs!.content);
      expect(streamed.usage).toEqual(whole.usage);
      expect(streamed.finish).toBe('stop');
    });
  });
}

describe('openai SDK: where the platform differs from OpenAI', () => {
  it('the Training API answers a request to stream with JSON: the SDK alone would see no chunks', async () => {
    const sdk = client(emu, 'training');
    const pending = sdk.chat.completions.create({ model: ARTIFACT, messages, stream: true });
    const response = await pending.asResponse();
    expect(response.headers.get('content-type')).toBe('application/json');
    const body = (await response.json()) as OpenAI.Chat.ChatCompletion;
    expect(body.choices[0]!.message.content).toMatch(/^You asked about "Which step is best\?"/);
    const again = await collect(
      await sdk.chat.completions.create({ model: ARTIFACT, messages, stream: true }),
    );
    expect(again).toEqual({ text: '', logprobs: [], usage: undefined, finish: null });
  });

  it('lists models on the Inference API; the Training API has no model list (404)', async () => {
    const page = await client(emu, 'inference').models.list();
    expect(page.data.map((m) => m.id)).toContain('OpenPipe/Qwen3-14B-Instruct');
    expect(page.data.every((m) => m.object === 'model' && m.owned_by === 'system')).toBe(true);
    await expect(client(emu, 'training').models.list()).rejects.toBeInstanceOf(OpenAI.NotFoundError);
  });

  it('raises the error class of each documented status', async () => {
    const inference = client(emu, 'inference');
    await expect(
      inference.chat.completions.create({ model: 'deepseek-ai/DeepSeek-V3.1', messages, logprobs: true }),
    ).rejects.toBeInstanceOf(OpenAI.UnprocessableEntityError);
    await expect(inference.chat.completions.create({ model: 'no/such', messages })).rejects.toBeInstanceOf(
      OpenAI.NotFoundError,
    );
    const stranger = new OpenAI({ apiKey: 'wrong-key', baseURL: emu.urls.inference, maxRetries: 0 });
    await expect(stranger.models.list()).rejects.toBeInstanceOf(OpenAI.AuthenticationError);
    await emu.fault({ path: '/inference/v1/chat/completions', status: 429, retry_after: '0', times: 1 });
    await expect(
      inference.chat.completions.create({ model: 'openai/gpt-oss-20b', messages }),
    ).rejects.toBeInstanceOf(OpenAI.RateLimitError);
  });

  it('several choices, each with its own logprobs', async () => {
    const completion = await client(emu, 'training').chat.completions.create({
      model: ARTIFACT,
      messages,
      n: 3,
      logprobs: true,
    });
    expect(completion.choices.map((c) => c.index)).toEqual([0, 1, 2]);
    const total = completion.choices.reduce((sum, c) => sum + c.logprobs!.content!.length, 0);
    expect(total).toBe(completion.usage!.completion_tokens);
  });
});
