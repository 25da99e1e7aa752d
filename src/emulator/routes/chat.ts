// Chat completions on both APIs (api-contract.md §2.3, §3.3): OpenAI-shaped answers with generated
// text and real token counts, or server-sent events with `stream: true`. On the Training API trained
// checkpoints are models (wandb-artifact:///team/project/name[:stepN]); the Inference API serves its
// catalog and, as the platform does, trained LoRAs by the same URI.

import { randomBytes } from 'node:crypto';
import { isObject } from '../../json.js';
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
import { INFERENCE_MODELS } from '../catalog.js';
import { generateTokens, promptTokens } from '../chat/generate.js';
import type { Exchange } from '../exchange.js';
import { validBody } from '../validation.js';
import type { EmulatorRouter } from './types.js';

interface ChatBody {
  model: string;
  messages: Array<Record<string, unknown>>;
  stream?: boolean;
  stream_options?: { include_usage?: boolean } | null;
  temperature?: number;
  max_tokens?: number | null;
  max_completion_tokens?: number | null;
}

const ARTIFACT = /^wandb-artifact:\/\/\/([^/]+)\/([^/]+)\/([^/:]+)(?::(latest|step(\d+)))?$/;

/** Is this model served here? A trained checkpoint must exist (the latest, or the step named). */
function modelExists(x: Exchange, model: string): boolean {
  const m = ARTIFACT.exec(model);
  if (m) {
    const found = x.state.models.findByName(m[1]!, m[2]!, m[3]!);
    if (!found) return false;
    const steps = x.state.models.checkpointsOf(found.id).map((c) => c.step);
    return m[5] === undefined ? steps.length > 0 : steps.includes(Number(m[5]));
  }
  return x.api === 'inference' && (INFERENCE_MODELS as readonly string[]).includes(model);
}

/** The request parameters both APIs check (others are accepted and ignored, as the platform does). */
const parameters = {
  stream: nullable(bool),
  stream_options: nullable(obj({}, { include_usage: bool })),
  temperature: nullable(within(num, 0, 2)),
  top_p: nullable(within(num, 0, 1)),
  max_tokens: nullable(within(int, 1)),
  max_completion_tokens: nullable(within(int, 1)),
  frequency_penalty: nullable(within(num, -2, 2)),
  presence_penalty: nullable(within(num, -2, 2)),
};
const chatBody: Check = obj({ model: str, messages: nonEmpty(arr(messageParam)) }, parameters);

function limitOf(body: ChatBody): number | undefined {
  const limit = body.max_completion_tokens ?? body.max_tokens;
  return typeof limit === 'number' && limit > 0 ? Math.floor(limit) : undefined;
}

async function complete(x: Exchange): Promise<void> {
  const body = validBody<ChatBody>(x, chatBody);
  if (!body) return;
  if (!modelExists(x, body.model)) {
    if (x.api === 'inference') {
      return x.send(404, {
        error: {
          message: `The model \`${body.model}\` does not exist`,
          type: 'not_found_error',
          code: 'model_not_found',
        },
      });
    }
    return x.error(404, `Model ${body.model} not found`);
  }
  const all = generateTokens(body.model, body.messages, body.temperature);
  const limit = limitOf(body);
  const tokens = limit === undefined ? all : all.slice(0, limit);
  const finish = tokens.length < all.length ? 'length' : 'stop';
  const usage = {
    prompt_tokens: promptTokens(body.messages),
    completion_tokens: tokens.length,
    total_tokens: 0,
  };
  usage.total_tokens = usage.prompt_tokens + usage.completion_tokens;
  const id = `chatcmpl-${randomBytes(12).toString('hex')}`;
  const created = Math.floor(Date.now() / 1000);

  if (!body.stream) {
    return x.send(200, {
      id,
      object: 'chat.completion',
      created,
      model: body.model,
      choices: [
        {
          index: 0,
          message: { role: 'assistant', content: tokens.join(''), refusal: null },
          logprobs: null,
          finish_reason: finish,
        },
      ],
      usage,
    });
  }

  const includeUsage = isObject(body.stream_options) && body.stream_options.include_usage === true;
  const chunk = (choices: unknown[], extra: Record<string, unknown> = {}) =>
    `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model: body.model, choices, ...(includeUsage ? { usage: null } : {}), ...extra })}\n\n`;
  const { res } = x;
  res.writeHead(200, {
    'content-type': 'text/event-stream',
    'cache-control': 'no-cache',
    'x-request-id': x.requestId,
  });
  let open = true;
  res.once('close', () => {
    open = false;
  });
  const pause = () => new Promise((resolve) => setTimeout(resolve, x.state.tokenMs));
  res.write(
    chunk([{ index: 0, delta: { role: 'assistant', content: '' }, logprobs: null, finish_reason: null }]),
  );
  for (const token of tokens) {
    if (x.state.tokenMs > 0) await pause();
    if (!open) return;
    res.write(chunk([{ index: 0, delta: { content: token }, logprobs: null, finish_reason: null }]));
  }
  res.write(chunk([{ index: 0, delta: {}, logprobs: null, finish_reason: finish }]));
  if (includeUsage) res.write(chunk([], { usage }));
  res.end('data: [DONE]\n\n');
}

export function registerChatRoutes(router: EmulatorRouter): void {
  for (const path of [
    '/inference/v1/chat/completions',
    '/inference/v1/chat/completions/',
    '/training/v1/chat/completions',
    '/training/v1/chat/completions/',
  ]) {
    router.add('POST', path, { run: complete });
  }
}
