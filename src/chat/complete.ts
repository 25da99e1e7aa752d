// One chat completion through the openai SDK, streamed or not. Streaming hands each piece of text on
// the moment it arrives; a stream that ends without a finish reason (cut short) is an error, after
// the text that did arrive has been handed on. The SDK's timeout covers only the wait for the answer
// to begin, so a stream that stalls part-way is ended here, after --timeout without a chunk.

import type OpenAI from 'openai';
import { openaiClient, sdkCall } from '../api/openai.js';
import type { Context } from '../context.js';
import { SERVICE_NAMES } from '../context.js';
import { NetworkError } from '../errors.js';
import type { ChatApi, ChatMessage, Usage } from './types.js';

export interface ChatRequest {
  api: ChatApi;
  model: string;
  messages: readonly ChatMessage[];
  /** temperature, max_tokens and any other parameter (-o key=value). */
  params: Record<string, unknown>;
}

export interface ChatOutcome {
  content: string;
  finishReason: string | null;
  usage: Usage | undefined;
  /** The model that answered, as the answer names it. */
  model?: string;
  /** The completion object as returned (not streamed). */
  completion?: unknown;
  /** Stopped by Ctrl-C: `content` is what arrived before. */
  interrupted: boolean;
}

export async function complete(
  ctx: Context,
  request: ChatRequest,
  options: { stream: boolean; onText?: (text: string) => void; signal?: AbortSignal; client?: OpenAI },
): Promise<ChatOutcome> {
  const client = options.client ?? (await openaiClient(ctx, request.api));
  const where = { method: 'POST', url: `${ctx.serviceUrl(request.api)}/chat/completions` };
  const body = {
    ...request.params,
    model: request.model,
    messages: request.messages,
  } as unknown as OpenAI.Chat.ChatCompletionCreateParamsNonStreaming;
  const aborted = () => options.signal?.aborted === true;
  if (!options.stream) {
    try {
      const completion = await sdkCall(request.api, where, () =>
        client.chat.completions.create({ ...body, stream: false }, { signal: options.signal }),
      );
      const choice = completion.choices[0];
      return {
        content: choice?.message?.content ?? '',
        finishReason: choice?.finish_reason ?? null,
        usage: completion.usage,
        model: completion.model,
        completion,
        interrupted: false,
      };
    } catch (error) {
      if (aborted()) return { content: '', finishReason: null, usage: undefined, interrupted: true };
      throw error;
    }
  }
  let content = '';
  let finishReason: string | null = null;
  let usage: Usage | undefined;
  let model: string | undefined;
  const idle = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const quiet = () => {
    clearTimeout(timer);
    timer = setTimeout(() => idle.abort(), ctx.timeoutMs);
  };
  const signal = options.signal ? AbortSignal.any([options.signal, idle.signal]) : idle.signal;
  const stalled = () =>
    new NetworkError(
      `${SERVICE_NAMES[request.api]}: the stream stalled: nothing for ${ctx.timeoutMs / 1000}s after ${content.length} characters (POST ${new URL(where.url).pathname})`,
    );
  try {
    await sdkCall(request.api, where, async () => {
      const stream = await client.chat.completions.create(
        { ...body, stream: true, stream_options: { include_usage: true } },
        { signal },
      );
      quiet();
      for await (const chunk of stream) {
        quiet();
        model ??= chunk.model;
        if (chunk.usage) usage = chunk.usage;
        const choice = chunk.choices[0];
        const text = choice?.delta?.content;
        if (text) {
          content += text;
          options.onText?.(text);
        }
        if (choice?.finish_reason) finishReason = choice.finish_reason;
      }
    });
  } catch (error) {
    if (aborted()) return { content, finishReason, usage, model, interrupted: true };
    if (idle.signal.aborted) throw stalled();
    throw error;
  } finally {
    clearTimeout(timer);
  }
  if (aborted()) return { content, finishReason, usage, model, interrupted: true };
  if (idle.signal.aborted) throw stalled();
  if (finishReason === null) {
    throw new NetworkError(
      `the ${request.api} API's stream ended before the reply was complete (${content.length} characters arrived)`,
    );
  }
  return { content, finishReason, usage, model, interrupted: false };
}
