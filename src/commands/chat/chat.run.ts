// `aip chat`: one completion (a prompt from the arguments and/or stdin), or, with no prompt on a
// terminal, a conversation (repl.ts). Streams by default when stdout is a terminal.

import { complete, noTextError } from '../../chat/complete.js';
import { type RememberedModel, resolveChatTarget, staleChatModel } from '../../chat/model.js';
import { parseParams } from '../../chat/params.js';
import { ChatSession } from '../../chat/session.js';
import type { ChatTracer } from '../../chat/trace.js';
import { assertWritable, loadTranscript } from '../../chat/transcript.js';
import { resolveCheckpointAlias } from '../../checkpoints/resolve-alias.js';
import type { Context } from '../../context.js';
import { InterruptedError, UsageError } from '../../errors/errors.js';
import { isNotFound } from '../../local-record/stale.js';
import type { ChatOptions } from './chat.js';
import { usageLine } from './usage.js';

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
  // A conversation is what is opened when there is no prompt on a terminal.
  const conversation = words.length === 0 && io.isStdinTTY && ctx.globals.input !== false;
  const { session, remembered } = await openSession(ctx, options, conversation);

  // As llm does: stdin (when piped) and the argument are both the prompt, stdin first.
  const piped = io.isStdinTTY ? '' : (await io.readStdin()).trimEnd();
  const prompt = [piped, words.join(' ')].filter(Boolean).join('\n');
  if (!prompt) {
    if (io.isStdinTTY && ctx.globals.input !== false) {
      const { runRepl } = await import('./repl.js');
      return runRepl(ctx, session, { stream: options.stream ?? true, usage: options.usage === true });
    }
    if (session.messages.at(-1)?.role !== 'user') {
      throw new UsageError(
        'no prompt: give one as an argument or on stdin (on a terminal, aip chat alone starts a conversation)',
      );
    }
  }
  if (prompt) session.ask(prompt);
  await replyOnce(ctx, session, options, remembered);
}

/** The session the flags describe, every flag checked before anything is read from stdin or sent. */
async function openSession(
  ctx: Context,
  options: ChatOptions,
  conversation: boolean,
): Promise<{ session: ChatSession; remembered: RememberedModel | undefined }> {
  const ref = options.model ?? ctx.settings.get('default-model');
  if (!ref)
    throw new UsageError(
      'no model: pass -m MODEL, or aip config set default-model MODEL (aip models list shows them)',
    );
  const params = { ...parseParams(options.option) };
  if (options.temperature !== undefined) params.temperature = options.temperature;
  if (options.maxTokens !== undefined) params.max_tokens = options.maxTokens;
  if (options.continue) assertWritable(options.continue);
  if (options.agent !== undefined && !options.trace)
    throw new UsageError('--agent names the agent in the spans of --trace: add --trace');
  if (options.agent === '') throw new UsageError('--agent needs a name');
  // name:best… and name:latest: the step, from a listing of the model's checkpoints (the flags checked
  // first); a name aip does not know is left to be an Inference API model id.
  const { remembered, ...target } = resolveChatTarget(
    ctx,
    await resolveCheckpointAlias(ctx, ref, { lenient: true }),
    options.api,
  );
  // A trace that could not be sent (no project, no key) is a usage error now, not after the reply.
  const tracer = options.trace ? await chatTracer(ctx, conversation, options.agent) : undefined;
  const history = options.continue ? await loadTranscript(ctx, options.continue) : [];
  const session = new ChatSession(ctx, {
    ...target,
    apiFlag: options.api,
    history,
    system: options.system,
    seeds: options.message,
    params,
    transcript: options.continue,
    tracer,
  });
  return { session, remembered };
}

/** One completion of the conversation as it stands, printed; the --continue file then holds both. */
async function replyOnce(
  ctx: Context,
  session: ChatSession,
  options: ChatOptions,
  remembered: RememberedModel | undefined,
): Promise<void> {
  const { io } = ctx;
  const stream = !ctx.json && (options.stream ?? io.isStdoutTTY);
  // Ctrl-C stops the reply; so does a reader that went away (`| head`): no tokens spent for nobody.
  const { signal, release } = ctx.interruptible({ orStdoutClosed: true });
  const endSpan = session.startSpan();
  let outcome: Awaited<ReturnType<typeof complete>>;
  let streamed = false;
  try {
    outcome = await complete(ctx, session.request, {
      stream,
      signal,
      onText: (text) => {
        streamed = true;
        io.write(text);
      },
    });
  } catch (error) {
    // What arrived before the failure stays on stdout, ended by a newline; the error goes to stderr.
    if (streamed) io.write('\n');
    await endSpan?.({ error });
    // A 404 for a model named from the local record may be a stale name: said so when it is.
    if (remembered) throw await staleChatModel(ctx, remembered, error);
    // Any other unknown model on the Inference API: where the names it knows are (issue 19).
    if (isNotFound(error) && session.api === 'inference' && !error.hint)
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
  session.keepReply(outcome.content);
  if (session.transcript) session.save(session.transcript);
}
