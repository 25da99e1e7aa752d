// One chat completion through the openai SDK, streamed or not. Streaming hands each piece of text on
// the moment it arrives; a stream that ends without a finish reason (cut short) is an error, after
// the text that did arrive has been handed on. The SDK's timeout covers only the wait for the answer
// to begin, so a stream that sends nothing after its headers, or stalls part-way, is ended here,
// after --timeout without a chunk (and by the fetch itself, sdk-fetch.ts, for a stream nobody asked
// for: a piped chat whose server streams anyway). Its size (each line, and the whole) is bounded in sdk-fetch.ts.
//
// A server may answer a request to stream with one JSON completion instead: the Training API's
// published document gives chat no other answer (api-contract.md §2.3, §6.4). That answer is taken
// whole, and its text handed on at once, as if it had streamed in one piece.

import type OpenAI from 'openai';
import { TIMEOUT_HINT } from '../api/limits.js';
import { type Metered, meteredCall, openaiClient, recordUsage, sdkCall } from '../api/openai.js';
import { StreamSilenceError } from '../api/sdk-fetch.js';
import type { Context } from '../context.js';
import { SERVICE_NAMES } from '../context.js';
import { CliError, NetworkError } from '../errors/errors.js';
import { usageOf } from '../history/usage-of.js';
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

/** The reply's text: a string content, or the text parts of a content list; "" for anything else. */
export function replyText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((part) => (typeof part?.text === 'string' && part.type !== 'refusal' ? part.text : ''))
    .join('');
}

/** What a whole completion says, read without trusting its shape (it came from a server). */
function outcomeOf(completion: OpenAI.Chat.ChatCompletion): ChatOutcome {
  const choice = Array.isArray(completion?.choices) ? completion.choices[0] : undefined;
  const usage = completion?.usage;
  return {
    content: replyText(choice?.message?.content),
    finishReason: typeof choice?.finish_reason === 'string' ? choice.finish_reason : null,
    usage: usage && typeof usage.prompt_tokens === 'number' ? usage : undefined,
    model: typeof completion?.model === 'string' ? completion.model : undefined,
    completion,
    interrupted: false,
  };
}

/**
 * A whole reply with no text (null content, a tool call, an odd shape): printing nothing and exiting 0
 * would leave the user guessing, so it is an error that says what came, and where to see all of it.
 */
export function noTextError(outcome: ChatOutcome): CliError | undefined {
  if (outcome.content !== '' || outcome.interrupted) return undefined;
  const why = outcome.finishReason ? ` (finish_reason: ${outcome.finishReason})` : '';
  return new CliError(`the reply has no text${why}; --json shows the whole answer`);
}

const isEventStream = (response: Response) =>
  /event-stream/i.test(response.headers.get('content-type') ?? '');

export async function complete(
  ctx: Context,
  request: ChatRequest,
  options: { stream: boolean; onText?: (text: string) => void; signal?: AbortSignal; client?: OpenAI },
): Promise<ChatOutcome> {
  const client = options.client ?? (await openaiClient(ctx, request.api));
  const where = {
    method: 'POST',
    url: `${ctx.serviceUrl(request.api)}/chat/completions`,
    timeoutMs: ctx.timeoutMs,
  };
  const body = {
    ...request.params,
    model: request.model,
    messages: request.messages,
  } as unknown as OpenAI.Chat.ChatCompletionCreateParamsNonStreaming;
  const aborted = () => options.signal?.aborted === true;
  const meter: Metered = { purpose: 'chat', model: request.model, request: body };
  if (!options.stream) {
    try {
      const completion = await meteredCall(
        client,
        where,
        // A signal per attempt: the SDK leaves a listener on the one it is given (rollouts/sample.ts).
        () =>
          client.chat.completions.create(
            { ...body, stream: false },
            { signal: options.signal && AbortSignal.any([options.signal]) },
          ),
        { signal: options.signal, meter },
      );
      return outcomeOf(completion);
    } catch (error) {
      if (aborted()) return { content: '', finishReason: null, usage: undefined, interrupted: true };
      throw error;
    }
  }
  let content = '';
  let finishReason: string | null = null;
  let usage: Usage | undefined;
  let model: string | undefined;
  let whole: ChatOutcome | undefined;
  const idle = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const quiet = () => {
    clearTimeout(timer);
    timer = setTimeout(() => idle.abort(), ctx.timeoutMs);
  };
  const signal = options.signal ? AbortSignal.any([options.signal, idle.signal]) : idle.signal;
  // Sent again only until the stream's answer has begun: after that, text may have been handed on.
  let begun = false;
  const stalled = () =>
    new NetworkError(
      `${SERVICE_NAMES[request.api]}: the stream stalled: nothing for ${ctx.timeoutMs / 1000}s after ${content.length} characters (POST ${new URL(where.url).pathname})`,
      { hint: TIMEOUT_HINT },
    );
  try {
    const stream = async () => {
      const pending = client.chat.completions.create(
        { ...body, stream: true, stream_options: { include_usage: true } },
        { signal: AbortSignal.any([signal]) },
      );
      const response = await pending.asResponse();
      quiet();
      if (!isEventStream(response)) {
        whole = outcomeOf((await response.json()) as OpenAI.Chat.ChatCompletion);
        return;
      }
      begun = true;
      for await (const chunk of await pending) {
        quiet();
        if (typeof chunk?.model === 'string') model ??= chunk.model;
        if (chunk?.usage) usage = chunk.usage;
        const choice = Array.isArray(chunk?.choices) ? chunk.choices[0] : undefined;
        const text = choice?.delta?.content;
        if (typeof text === 'string' && text) {
          content += text;
          options.onText?.(text);
        }
        if (typeof choice?.finish_reason === 'string') finishReason = choice.finish_reason;
      }
    };
    await sdkCall(client, where, stream, { signal: options.signal, mayResend: () => !begun });
  } catch (error) {
    if (aborted()) return { content, finishReason, usage, model, interrupted: true };
    // The same silence, seen by the fetch (sdk-fetch.ts) a moment before the timer here.
    if (idle.signal.aborted || error instanceof StreamSilenceError) throw stalled();
    throw error;
  } finally {
    clearTimeout(timer);
  }
  // The history counts a streamed reply once it has ended, or was stopped (usage as far as it came).
  const counted = (outcome: ChatOutcome): ChatOutcome => {
    const { content: text, finishReason: finish_reason, usage: used } = outcome;
    recordUsage(client, meter, usageOf({ usage: used, choices: [0] }), {
      model: outcome.model,
      content: text,
      finish_reason,
      usage: used,
    });
    return outcome;
  };
  if (aborted()) return counted({ content, finishReason, usage, model, interrupted: true });
  if (idle.signal.aborted) throw stalled();
  if (whole) {
    if (whole.content) options.onText?.(whole.content);
    return counted(whole);
  }
  if (finishReason === null) {
    throw new NetworkError(
      `the ${request.api} API's stream ended before the reply was complete (${content.length} characters arrived)`,
    );
  }
  return counted({ content, finishReason, usage, model, interrupted: false });
}
