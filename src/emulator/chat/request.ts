// What the emulated chat completions accept, on each API. Both check the parameters they know the
// types and ranges of (a FastAPI 422 naming each bad one). The Inference API also refuses what the
// contract says it does not support (api-contract.md §3.3, §3.5: "unsupported/out-of-range
// parameter … unsupported response_format → 422", tools are "functions only", logprobs are
// model-dependent). The Training API's request is an open object passed on to the model server
// (§2.3), so it refuses only what no model server could answer. On both, a `json_schema` response
// format whose schema the emulator cannot generate from is refused (structured-output.ts).

import { isObject } from '../../lib/json.js';
import { messageParam } from '../../validate/chat-schema.js';
import {
  arr,
  bool,
  type Check,
  int,
  nonEmpty,
  nullable,
  num,
  obj,
  str,
  within,
} from '../../validate/schema.js';
import { LOGPROBS_UNSUPPORTED } from '../catalog.js';
import type { Api, ValidationItem } from '../exchange.js';
import { responseFormatProblems } from './structured-output.js';

export interface ChatBody {
  model: string;
  messages: Array<Record<string, unknown>>;
  stream?: boolean | null;
  stream_options?: { include_usage?: boolean } | null;
  temperature?: number | null;
  max_tokens?: number | null;
  max_completion_tokens?: number | null;
  n?: number | null;
  /** OpenAI's `seed`: the same seed (and request), the same sample; another seed, another sample. */
  seed?: number | null;
  logprobs?: boolean | null;
  top_logprobs?: number | null;
  tools?: unknown;
  response_format?: unknown;
}

/** OpenAI's bounds: at most 20 alternatives per token; n up to 128. */
export const MAX_TOP_LOGPROBS = 20;
export const MAX_CHOICES = 128;

const parameters = {
  stream: nullable(bool),
  stream_options: nullable(obj({}, { include_usage: bool })),
  temperature: nullable(within(num, 0, 2)),
  top_p: nullable(within(num, 0, 1)),
  max_tokens: nullable(within(int, 1)),
  max_completion_tokens: nullable(within(int, 1)),
  frequency_penalty: nullable(within(num, -2, 2)),
  presence_penalty: nullable(within(num, -2, 2)),
  n: nullable(within(int, 1, MAX_CHOICES)),
  // An integer in OpenAI's schema; checked on both APIs, as the other parameters here are.
  seed: nullable(int),
  logprobs: nullable(bool),
  top_logprobs: nullable(within(int, 0, MAX_TOP_LOGPROBS)),
};

export const chatBody: Check = obj({ model: str, messages: nonEmpty(arr(messageParam)) }, parameters);

const RESPONSE_FORMATS = ['text', 'json_object', 'json_schema'];

const unsupported = (loc: Array<string | number>, msg: string): ValidationItem => ({
  type: 'unsupported_parameter',
  loc: ['body', ...loc],
  msg,
});

/** Problems of a body that passed `chatBody`, beyond types and ranges: [] when it can be answered. */
export function unsupportedParameters(api: Api, body: ChatBody): ValidationItem[] {
  const items: ValidationItem[] = [];
  // As OpenAI-compatible servers check it: alternatives are a part of the logprobs, not instead.
  if (body.top_logprobs != null && body.logprobs !== true)
    items.push(unsupported(['top_logprobs'], 'top_logprobs requires logprobs to be true'));
  const schemaItems = responseFormatProblems(body.response_format);
  if (api !== 'inference') return [...items, ...schemaItems];
  if (body.logprobs === true && (LOGPROBS_UNSUPPORTED as readonly string[]).includes(body.model))
    items.push(unsupported(['logprobs'], `logprobs are not supported for model ${body.model}`));
  if (Array.isArray(body.tools)) {
    body.tools.forEach((tool, i) => {
      if (!isObject(tool) || tool.type !== 'function')
        items.push(unsupported(['tools', i, 'type'], 'only function tools are supported'));
    });
  }
  const format = body.response_format;
  if (format != null && (!isObject(format) || !RESPONSE_FORMATS.includes(String(format.type)))) {
    items.push(
      unsupported(
        ['response_format', 'type'],
        `response_format must be one of ${RESPONSE_FORMATS.join(', ')}`,
      ),
    );
  }
  return [...items, ...schemaItems];
}
