// OpenAI chat types as the Training API's OpenAPI document defines them (the message params a
// trajectory holds, the sampled Choice objects RL trains on, function tools). Unions are told apart
// by their discriminator (role, type), so that an error names the one field that is wrong instead of
// every member of the union.

import { isObject } from '../lib/json.js';
import {
  arr,
  bool,
  type Check,
  describe,
  type Fields,
  int,
  literal,
  nullable,
  num,
  obj,
  quoteList,
  record,
  str,
} from './schema.js';

/** A union discriminated by a string field: the variant is picked by that field's value. */
export function tagged(tag: string, variants: Record<string, Check>, what: string): Check {
  const listed = quoteList(Object.keys(variants));
  return (v, path, issues) => {
    if (!isObject(v)) {
      issues.push({
        path,
        type: 'model_type',
        msg: `Input should be ${what} (an object), not ${describe(v)}`,
      });
      return;
    }
    // Own keys only: a role of "constructor" or "__proto__" must not find Object's members.
    const name = v[tag];
    const variant = typeof name === 'string' && Object.hasOwn(variants, name) ? variants[name] : undefined;
    if (variant) return variant(v, path, issues);
    issues.push(
      v[tag] === undefined
        ? { path: [...path, tag], type: 'missing', msg: `Field required (${what}s need a ${tag}: ${listed})` }
        : {
            path: [...path, tag],
            type: 'union_tag_invalid',
            msg: `Input should be ${listed}, not ${describe(v[tag])}`,
          },
    );
  };
}

const textPart = obj({ type: literal('text'), text: str });
const imagePart = obj({
  type: literal('image_url'),
  image_url: obj({ url: str }, { detail: literal('auto', 'low', 'high') }),
});
const audioPart = obj({
  type: literal('input_audio'),
  input_audio: obj({ data: str, format: literal('wav', 'mp3') }),
});
const filePart = obj({
  type: literal('file'),
  file: obj({}, { file_data: str, file_id: str, filename: str }),
});
const refusalPart = obj({ type: literal('refusal'), refusal: str });

/** string, or a list of content parts of the given kinds */
function content(parts: Record<string, Check>): Check {
  const part = tagged('type', parts, 'content part');
  const list = arr(part);
  return (v, path, issues) => {
    if (typeof v === 'string') return;
    if (!Array.isArray(v)) {
      issues.push({
        path,
        type: 'union_type',
        msg: `Input should be a string or a list of content parts, not ${describe(v)}`,
      });
      return;
    }
    list(v, path, issues);
  };
}

const textContent = content({ text: textPart });
const userContent = content({ text: textPart, image_url: imagePart, input_audio: audioPart, file: filePart });
const assistantContent = content({ text: textPart, refusal: refusalPart });

const functionCall = obj({ arguments: str, name: str });
/** A tool call, in an assistant message param and in a sampled message alike. */
const toolCall = tagged(
  'type',
  {
    function: obj({ id: str, type: literal('function'), function: functionCall }),
    custom: obj({ id: str, type: literal('custom'), custom: obj({ input: str, name: str }) }),
  },
  'tool call',
);

const named: Fields = { name: str };

export const messageParams: Record<string, Check> = {
  developer: obj({ role: literal('developer'), content: textContent }, named),
  system: obj({ role: literal('system'), content: textContent }, named),
  user: obj({ role: literal('user'), content: userContent }, named),
  assistant: obj(
    { role: literal('assistant') },
    {
      audio: nullable(obj({ id: str })),
      content: nullable(assistantContent),
      function_call: nullable(functionCall),
      name: str,
      refusal: nullable(str),
      tool_calls: arr(toolCall),
    },
  ),
  tool: obj({ role: literal('tool'), content: textContent, tool_call_id: str }),
  function: obj({ role: literal('function'), content: nullable(str), name: str }),
};

/** A chat message as the API takes it (ChatCompletion*MessageParam). */
export const messageParam = tagged('role', messageParams, 'message');

const tokenLogprob = obj(
  {
    token: str,
    logprob: num,
    top_logprobs: arr(obj({ token: str, logprob: num }, { bytes: nullable(arr(int)) })),
  },
  { bytes: nullable(arr(int)) },
);

/** The message inside a sampled choice (ChatCompletionMessage). */
const completionMessage = obj(
  { role: literal('assistant') },
  {
    content: nullable(str),
    refusal: nullable(str),
    annotations: nullable(
      arr(
        obj({
          type: literal('url_citation'),
          url_citation: obj({ end_index: int, start_index: int, title: str, url: str }),
        }),
      ),
    ),
    audio: nullable(obj({ id: str, data: str, expires_at: int, transcript: str })),
    function_call: nullable(functionCall),
    tool_calls: nullable(arr(toolCall)),
  },
);

/** A sampled, trainable assistant turn: an OpenAI chat-completion choice. */
export const choice = obj(
  {
    finish_reason: literal('stop', 'length', 'tool_calls', 'content_filter', 'function_call'),
    index: int,
    message: completionMessage,
  },
  {
    logprobs: nullable(
      obj({}, { content: nullable(arr(tokenLogprob)), refusal: nullable(arr(tokenLogprob)) }),
    ),
  },
);

/**
 * One entry of messages_and_choices: a message param (it has a role) or a Choice (it has
 * finish_reason / index / message and no role).
 */
export const messageOrChoice: Check = (v, path, issues) => {
  if (isObject(v) && v.role === undefined && ('finish_reason' in v || 'message' in v || 'index' in v)) {
    return choice(v, path, issues);
  }
  messageParam(v, path, issues);
};

/** A function tool (ChatCompletionFunctionToolParam). */
export const functionTool = obj({
  type: literal('function'),
  function: obj(
    { name: str },
    { description: str, parameters: record(() => undefined), strict: nullable(bool) },
  ),
});
