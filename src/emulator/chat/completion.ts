// The emulated model's answer to one chat request, in the OpenAI shapes: a `chat.completion` object,
// or the `chat.completion.chunk` objects of a stream. One sampling serves both, so a streamed reply
// has exactly the text, logprobs and usage the same request gets whole.

import { generateTokens, promptTokens } from './generate.js';
import { type TokenLogprob, tokenLogprobs } from './logprobs.js';
import type { ChatBody } from './request.js';
import { structuredFormat, structuredTokens } from './structured-output.js';

export interface SampledChoice {
  index: number;
  tokens: string[];
  finish: 'stop' | 'length';
  /** Set when `logprobs: true` was asked: one entry per token. */
  logprobs: TokenLogprob[] | undefined;
}

export interface Sampled {
  choices: SampledChoice[];
  usage: { prompt_tokens: number; completion_tokens: number; total_tokens: number };
}

function limitOf(body: ChatBody): number | undefined {
  const limit = body.max_completion_tokens ?? body.max_tokens;
  return typeof limit === 'number' && limit > 0 ? Math.floor(limit) : undefined;
}

/**
 * The choices of one request. `step`: the model's training step (0 for a base model), which makes an
 * arithmetic answer likelier right (checkpoint-skill.ts). A `json_object` or `json_schema` response
 * format makes every choice JSON of that shape (structured-output.ts), whatever the question.
 */
export function sample(body: ChatBody, step: number): Sampled {
  const limit = limitOf(body);
  const temperature = body.temperature ?? undefined;
  const seed = body.seed ?? undefined;
  const structured = structuredFormat(body.response_format);
  const choices = Array.from({ length: body.n ?? 1 }, (_, index): SampledChoice => {
    const all = structured
      ? structuredTokens(
          structured,
          JSON.stringify([
            body.model,
            body.messages,
            temperature ?? null,
            index,
            seed ?? null,
            body.response_format,
          ]),
        )
      : generateTokens({
          model: body.model,
          step,
          messages: body.messages,
          temperature,
          seed,
          choice: index,
        });
    const tokens = limit === undefined ? all : all.slice(0, limit);
    const seedText = JSON.stringify([
      body.model,
      body.messages,
      temperature ?? null,
      index,
      ...(seed !== undefined ? [{ seed }] : []),
    ]);
    return {
      index,
      tokens,
      finish: tokens.length < all.length ? 'length' : 'stop',
      logprobs: body.logprobs === true ? tokenLogprobs(tokens, seedText, body.top_logprobs ?? 0) : undefined,
    };
  });
  const prompt = promptTokens(body.messages);
  const completion = choices.reduce((sum, c) => sum + c.tokens.length, 0);
  return {
    choices,
    usage: { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion },
  };
}

export interface CompletionMeta {
  id: string;
  created: number;
  model: string;
}

const logprobsOf = (entries: TokenLogprob[] | undefined) =>
  entries === undefined ? null : { content: entries, refusal: null };

export function completionObject(meta: CompletionMeta, sampled: Sampled) {
  return {
    id: meta.id,
    object: 'chat.completion',
    created: meta.created,
    model: meta.model,
    choices: sampled.choices.map((c) => ({
      index: c.index,
      message: { role: 'assistant', content: c.tokens.join(''), refusal: null },
      logprobs: logprobsOf(c.logprobs),
      finish_reason: c.finish,
    })),
    usage: sampled.usage,
  };
}

/**
 * The stream's chunks, in order, as OpenAI sends them: a role chunk per choice, then one chunk per
 * token (choices taking turns), a finish chunk per choice, and with `include_usage` a last chunk with
 * no choices and the usage (every other chunk then carries `usage: null`). `paced`: a token chunk,
 * which a model takes time to produce.
 */
export function* streamChunks(
  meta: CompletionMeta,
  sampled: Sampled,
  includeUsage: boolean,
): Generator<{ data: unknown; paced: boolean }> {
  const chunk = (choices: unknown[], extra: Record<string, unknown> = {}) => ({
    id: meta.id,
    object: 'chat.completion.chunk',
    created: meta.created,
    model: meta.model,
    choices,
    ...(includeUsage ? { usage: null } : {}),
    ...extra,
  });
  for (const c of sampled.choices) {
    const delta = { role: 'assistant', content: '' };
    yield { data: chunk([{ index: c.index, delta, logprobs: null, finish_reason: null }]), paced: false };
  }
  const longest = Math.max(...sampled.choices.map((c) => c.tokens.length));
  for (let t = 0; t < longest; t++) {
    for (const c of sampled.choices) {
      const token = c.tokens[t];
      if (token === undefined) continue;
      const logprobs = c.logprobs ? logprobsOf([c.logprobs[t]!]) : null;
      const data = chunk([{ index: c.index, delta: { content: token }, logprobs, finish_reason: null }]);
      yield { data, paced: true };
    }
  }
  for (const c of sampled.choices)
    yield {
      data: chunk([{ index: c.index, delta: {}, logprobs: null, finish_reason: c.finish }]),
      paced: false,
    };
  if (includeUsage) yield { data: chunk([], { usage: sampled.usage }), paced: false };
}
