// `aip chat`: one completion (a prompt from the arguments and/or stdin), or, with no prompt on a
// terminal, a conversation (repl.ts). Streams by default when stdout is a terminal.

import { complete, noTextError } from '../../chat/complete.js';
import { resolveChatTarget, staleChatModel } from '../../chat/model.js';
import { parseParams } from '../../chat/params.js';
import type { ChatTracer } from '../../chat/trace.js';
import { assertWritable, loadTranscript, saveTranscript } from '../../chat/transcript.js';
import type { ChatMessage } from '../../chat/types.js';
import type { Context } from '../../context.js';
import { InterruptedError, UsageError } from '../../errors/errors.js';
import { isNotFound } from '../../local-record/stale.js';
import type { ChatOptions } from './chat.js';
import { usageLine } from './usage.js';

const ROLES = ['system', 'developer', 'user', 'assistant'];

/** The conversation before the prompt: a transcript, then -s (first), then each --message. */
export function seedMessages(
  history: readonly ChatMessage[],
  system: string | undefined,
  seeds: readonly string[] = [],
): ChatMessage[] {
  const messages = [...history];
  if (system !== undefined) {
    if (messages[0]?.role === 'system') messages[0] = { role: 'system', content: system };
    else messages.unshift({ role: 'system', content: system });
  }
  for (const seed of seeds) {
    const colon = seed.indexOf(':');
    const role = colon > 0 ? seed.slice(0, colon) : '';
    if (!ROLES.includes(role))
      throw new UsageError(`--message ${seed}: expected role:content with a role of ${ROLES.join(', ')}`);
    messages.push({ role, content: seed.slice(colon + 1) });
  }
  return messages;
}

/** The span recorder of --trace (its module, and the trace client, loaded only then). */
async function chatTracer(
  ctx: Context,
  conversation: boolean,
  agent: string | undefined,
): Promise<ChatTracer> {
  const { ChatTracer } = await import('../../chat/trace.js');
  return conversation ? ChatTracer.conversation(ctx, agent) : new ChatTracer(ctx, { agent });
}

export async function runChat(ctx: Context, words: string[], options: ChatOptions): Promise<void> {
  const { io } = ctx;
  const ref = options.model ?? ctx.settings.get('default-model');
  if (!ref)
    throw new UsageError(
      'no model: pass -m MODEL, or aip config set default-model MODEL (aip models list shows them)',
    );
  const { remembered, ...target } = resolveChatTarget(ctx, ref, options.api);
  const params = { ...parseParams(options.option) };
  if (options.temperature !== undefined) params.temperature = options.temperature;
  if (options.maxTokens !== undefined) params.max_tokens = options.maxTokens;
  if (options.continue) assertWritable(options.continue);
  if (options.agent !== undefined && !options.trace)
    throw new UsageError('--agent names the agent in the spans of --trace: add --trace');
  if (options.agent === '') throw new UsageError('--agent needs a name');
  // A trace that could not be sent (no project, no key) is a usage error now, not after the reply.
  // A conversation is what the code below opens when there is no prompt on a terminal.
  const conversation = words.length === 0 && io.isStdinTTY && ctx.globals.input !== false;
  const tracer = options.trace ? await chatTracer(ctx, conversation, options.agent) : undefined;
  const history = options.continue ? await loadTranscript(ctx, options.continue) : [];
  const messages = seedMessages(history, options.system, options.message);

  // As llm does: stdin (when piped) and the argument are both the prompt, stdin first.
  const piped = io.isStdinTTY ? '' : (await io.readStdin()).trimEnd();
  const prompt = [piped, words.join(' ')].filter(Boolean).join('\n');
  if (!prompt) {
    if (io.isStdinTTY && ctx.globals.input !== false) {
      const { runRepl } = await import('./repl.js');
      return runRepl(ctx, {
        ...target,
        apiFlag: options.api,
        messages,
        params,
        transcript: options.continue,
        stream: options.stream ?? true,
        usage: options.usage === true,
        tracer,
      });
    }
    if (messages.at(-1)?.role !== 'user') {
      throw new UsageError(
        'no prompt: give one as an argument or on stdin (on a terminal, aip chat alone starts a conversation)',
      );
    }
  }
  if (prompt) messages.push({ role: 'user', content: prompt });

  const stream = !ctx.json && (options.stream ?? io.isStdoutTTY);
  // Ctrl-C stops the reply; so does a reader that went away (`| head`): no tokens spent for nobody.
  const { signal, release } = ctx.interruptible({ orStdoutClosed: true });
  const endSpan = tracer?.start({ ...target, params });
  let outcome: Awaited<ReturnType<typeof complete>>;
  let streamed = false;
  try {
    outcome = await complete(
      ctx,
      { ...target, messages, params },
      {
        stream,
        signal,
        onText: (text) => {
          streamed = true;
          io.write(text);
        },
      },
    );
  } catch (error) {
    // What arrived before the failure stays on stdout, ended by a newline; the error goes to stderr.
    if (streamed) io.write('\n');
    await endSpan?.({ error });
    // A 404 for a model named from the local record may be a stale name: said so when it is.
    if (remembered) throw await staleChatModel(ctx, remembered, error);
    // Any other unknown model on the Inference API: where the names it knows are (issue 19).
    if (isNotFound(error) && target.api === 'inference' && !error.hint)
      error.hint = `the models it serves: ${ctx.commandLine(['models', 'list'])}`;
    throw error;
  } finally {
    release();
  }
  if (outcome.interrupted) {
    await endSpan?.(outcome);
    if (io.outputClosed) return; // the reader has what it wanted
    if (streamed) io.write('\n');
    if (options.usage) io.err(usageLine(outcome.usage));
    throw new InterruptedError();
  }
  const noText = ctx.json ? undefined : noTextError(outcome);
  if (noText) {
    await endSpan?.(outcome);
    throw noText;
  }
  if (ctx.json) io.json(outcome.completion);
  else if (stream) io.write('\n');
  else io.out(outcome.content);
  if (options.usage) io.err(usageLine(outcome.usage));
  await endSpan?.(outcome);
  // The transcript becomes the conversation as sent (seeds included), and the reply.
  if (options.continue)
    saveTranscript(options.continue, [...messages, { role: 'assistant', content: outcome.content }]);
}
