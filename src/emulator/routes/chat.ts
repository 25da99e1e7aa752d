// Chat completions on both APIs (api-contract.md §2.3, §3.3): OpenAI-shaped answers with generated
// text, real token counts and, when asked, per-token logprobs. On the Training API trained
// checkpoints are models (wandb-artifact:///team/project/name[:stepN]); the Inference API serves its
// catalog and, as the platform does, trained LoRAs by the same URI. A checkpoint's step makes its
// answers to arithmetic questions likelier right (chat/checkpoint-skill.ts); base models are step 0.
//
// Streaming: the Inference API answers `stream: true` with server-sent events. The Training API's
// published document gives chat completions an application/json answer only, and whether the platform
// streams there is unknown (api-contract.md §6.4): it answers JSON whatever is asked, unless the
// emulator runs with --training-chat-stream to stand in for a server that streams.

import { randomBytes } from 'node:crypto';
import { isObject } from '../../lib/json.js';
import { INFERENCE_MODELS } from '../catalog.js';
import {
  type CompletionMeta,
  completionObject,
  type Sampled,
  sample,
  streamChunks,
} from '../chat/completion.js';
import { type ChatBody, chatBody, unsupportedParameters } from '../chat/request.js';
import { waitForClient } from '../client-wait.js';
import type { Exchange } from '../exchange.js';
import { validBody } from '../validation.js';
import type { EmulatorRouter } from './types.js';

const ARTIFACT = /^wandb-artifact:\/\/\/([^/]+)\/([^/]+)\/([^/:]+)(?::(latest|step(\d+)))?$/;

/**
 * The training step of the model asked for, if it is served here: a trained checkpoint's (the step
 * named, or with `:latest` or no alias the model's latest), 0 for a base model of the catalog.
 */
function modelStep(x: Exchange, model: string): number | undefined {
  const m = ARTIFACT.exec(model);
  if (m) {
    const found = x.state.models.findByName(m[1]!, m[2]!, m[3]!);
    if (!found) return undefined;
    const checkpoints = x.state.models.checkpointsOf(found.id); // in step order (store/models.ts)
    if (m[5] === undefined) return checkpoints.at(-1)?.step;
    const step = Number(m[5]);
    return checkpoints.some((c) => c.step === step) ? step : undefined;
  }
  return x.api === 'inference' && (INFERENCE_MODELS as readonly string[]).includes(model) ? 0 : undefined;
}

function modelNotFound(x: Exchange, model: string): void {
  if (x.api === 'inference') {
    const error = {
      message: `The model \`${model}\` does not exist`,
      type: 'not_found_error',
      code: 'model_not_found',
    };
    x.send(404, { error });
  } else x.error(404, `Model ${model} not found`);
}

async function stream(x: Exchange, meta: CompletionMeta, sampled: Sampled, includeUsage: boolean) {
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
  for (const { data, paced } of streamChunks(meta, sampled, includeUsage)) {
    if (paced && x.state.tokenMs > 0) await pause();
    if (!open) return;
    res.write(`data: ${JSON.stringify(data)}\n\n`);
  }
  res.end('data: [DONE]\n\n');
}

async function complete(x: Exchange): Promise<void> {
  const body = validBody<ChatBody>(x, chatBody);
  if (!body) return;
  const unsupported = unsupportedParameters(x.api, body);
  if (unsupported.length > 0) {
    x.invalid(unsupported);
    return;
  }
  const step = modelStep(x, body.model);
  if (step === undefined) {
    modelNotFound(x, body.model);
    return;
  }
  const sampled = sample(body, step);
  const meta = {
    id: `chatcmpl-${randomBytes(12).toString('hex')}`,
    created: Math.floor(Date.now() / 1000),
    model: body.model,
  };
  const streams = x.api === 'inference' || x.state.trainingChatStream;
  if (body.stream !== true || !streams) {
    // A whole reply comes when its last token would have: as many token times as it has tokens (the
    // stream of it takes as long). A client gone meanwhile gets nothing.
    const wait = x.state.unstreamedTokenMs * sampled.usage.completion_tokens;
    if (wait > 0 && !(await waitForClient(wait, x.res))) return;
    x.usage = usageOf(sampled);
    x.send(200, completionObject(meta, sampled));
    return;
  }
  const includeUsage = isObject(body.stream_options) && body.stream_options.include_usage === true;
  // Charged only if the whole stream goes out (a client that leaves takes part of it): steps/record.ts.
  x.usage = usageOf(sampled);
  x.usageIfFinished = true;
  await stream(x, meta, sampled, includeUsage);
}

const usageOf = (sampled: { usage: { prompt_tokens: number; completion_tokens: number } }) => ({
  prompt_tokens: sampled.usage.prompt_tokens,
  completion_tokens: sampled.usage.completion_tokens,
});

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
