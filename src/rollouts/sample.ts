// One rollout's request: a chat completion on the Training API with logprobs, through the openai SDK,
// turned into a Choice of the trajectory-group schema. It is retried as every request is (sdkCall),
// except a 429, which goes to the caller's hook with its Retry-After, so that the adaptive limit slows
// every request down rather than each one waiting on its own.

import type OpenAI from 'openai';
import { meteredCall, type SdkCallOptions } from '../api/openai.js';
import { isObject } from '../lib/json.js';
import { choice as choiceShape } from '../validate/chat-schema.js';
import { formatPath, validate } from '../validate/schema.js';
import type { Task } from './tasks.js';

export interface Sample {
  /** The Choice, as a trajectory holds it. */
  choice: Record<string, unknown>;
  reply: string;
  usage: OpenAI.CompletionUsage | undefined;
  model: string | undefined;
}

export type SampleResult = { ok: true; sample: Sample } | { ok: false; reason: string };

/** The fields of a Choice the schema knows; a server's extras (vLLM's stop_reason…) are left out. */
function choiceOf(raw: Record<string, unknown>): Record<string, unknown> {
  const message = isObject(raw.message) ? raw.message : {};
  const kept: Record<string, unknown> = { role: 'assistant', content: message.content ?? null };
  for (const key of ['refusal', 'tool_calls', 'function_call', 'audio', 'annotations'])
    if (message[key] !== undefined && message[key] !== null) kept[key] = message[key];
  return {
    finish_reason: raw.finish_reason,
    index: 0,
    message: kept,
    logprobs: raw.logprobs ?? null,
  };
}

export async function sampleOnce(
  client: OpenAI,
  where: { url: string; timeoutMs: number },
  request: { model: string; task: Task; params: Record<string, unknown>; seed: number },
  signal: AbortSignal,
  /** A 429: handed to the run's adaptive limit, which says when to ask again (retrying.ts). */
  onThrottled: SdkCallOptions['onThrottled'],
): Promise<SampleResult> {
  const { task } = request;
  const body = {
    ...request.params,
    model: request.model,
    messages: task.messages,
    ...(task.tools ? { tools: task.tools } : {}),
    logprobs: true,
    seed: request.seed,
    stream: false,
  } as OpenAI.Chat.ChatCompletionCreateParamsNonStreaming;
  // The SDK leaves a listener on the signal it is given, and a run's signal is shared by all of its
  // requests: each attempt (a 429 asked again, a retry) gets a signal of its own that follows the
  // run's (AbortSignal.any holds it weakly, so it goes with the attempt).
  const completion = await meteredCall(
    client,
    { method: 'POST', ...where },
    () => client.chat.completions.create(body, { signal: AbortSignal.any([signal]) }),
    { signal, onThrottled, meter: { purpose: 'sample', model: request.model, request: body } },
  );
  const first = Array.isArray(completion?.choices) ? completion.choices[0] : undefined;
  if (!isObject(first)) return { ok: false, reason: 'the answer has no choice' };
  const choice = choiceOf(first as unknown as Record<string, unknown>);
  const issues = validate(choiceShape, choice);
  if (issues.length > 0) {
    const issue = issues[0]!;
    return {
      ok: false,
      reason: `the answer's choice is not one a trajectory can hold: ${formatPath(issue.path)}: ${issue.msg}`,
    };
  }
  const content = (choice.message as { content: unknown }).content;
  return {
    ok: true,
    sample: {
      choice,
      reply: typeof content === 'string' ? content : '',
      usage: completion.usage ?? undefined,
      model: typeof completion.model === 'string' ? completion.model : undefined,
    },
  };
}
