// `aip chat` with no prompt on a terminal: a conversation. Replies go to stdout; the prompt and notes
// go to stderr. The conversation is kept for the session (and written to the --continue file after
// each turn). Ctrl-C stops a reply without leaving, Ctrl-D (or /exit) leaves, a line of """ starts
// and ends a message of several lines. While a reply is coming, what is typed is not echoed into it:
// finished lines wait their turn, and an unfinished one reappears at the next prompt.

import { Writable } from 'node:stream';
import type OpenAI from 'openai';
import { openaiClient, sdkCall } from '../../api/openai.js';
import { complete, noTextError } from '../../chat/complete.js';
import { resolveChatModel } from '../../chat/model.js';
import type { ChatTracer } from '../../chat/trace.js';
import { saveTranscript } from '../../chat/transcript.js';
import type { ChatApi, ChatMessage } from '../../chat/types.js';
import type { Context } from '../../context.js';
import { InterruptedError, UsageError } from '../../errors/errors.js';
import { report } from '../../errors/report.js';
import { usageLine } from './usage.js';

export interface ReplState {
  model: string;
  api: ChatApi;
  /** --api, kept when /model changes the model. */
  apiFlag: ChatApi | undefined;
  messages: ChatMessage[];
  params: Record<string, unknown>;
  /** The --continue file, written after each turn (until /reset). */
  transcript: string | undefined;
  stream: boolean;
  usage: boolean;
  /** --trace: a span per turn, all with the conversation's id. */
  tracer: ChatTracer | undefined;
}

const HELP = [
  '/system [text]  show or set the system prompt',
  '/model [name]   show or change the model',
  '/reset          forget the conversation (the system prompt stays)',
  '/save <file>    write the conversation as JSON Lines',
  '/exit           leave (or Ctrl-D)',
  '"""             on a line of its own: start, and end, a message of several lines',
];

/** What a transcript that cannot be written means here: nothing is lost yet. */
const KEPT = 'the conversation is still here: /save OTHER-FILE writes it elsewhere';

const FENCE = '"""';
const PROMPT = '> ';
const MORE = '… ';

/** stderr, for readline, with a switch that silences it (its echo of keys typed during a reply). */
function switchableScreen(stderr: NodeJS.WritableStream): Writable & { muted: boolean } {
  const target = stderr as NodeJS.WriteStream;
  const screen = Object.assign(
    new Writable({
      write(chunk, _encoding, callback) {
        if (!screen.muted) target.write(chunk);
        callback();
      },
    }),
    { muted: false, isTTY: true },
  );
  Object.defineProperty(screen, 'columns', { get: () => target.columns });
  Object.defineProperty(screen, 'rows', { get: () => target.rows });
  target.on?.('resize', () => screen.emit('resize'));
  return screen;
}

export async function runRepl(ctx: Context, state: ReplState): Promise<void> {
  const { io } = ctx;
  const { createInterface } = await import('node:readline');
  const clients = new Map<ChatApi, OpenAI>();
  const clientFor = async (api: ChatApi) => {
    if (!clients.has(api)) clients.set(api, await openaiClient(ctx, api));
    return clients.get(api)!;
  };
  let inferenceModels: Set<string> | undefined;
  await clientFor(state.api);
  io.info(
    `Chatting with ${state.model} on the ${state.api} API${state.messages.length ? ` (${state.messages.length} messages so far)` : ''}. /help for commands, Ctrl-D to leave.`,
  );

  const screen = switchableScreen(io.stderrStream);
  const rl = createInterface({ input: io.stdin, output: screen, terminal: true, historySize: 200 });
  rl.setPrompt(PROMPT);
  let reply: AbortController | undefined;
  let block: string[] | undefined;
  let closed = false;

  const setSystem = (text: string) => {
    if (state.messages[0]?.role === 'system') state.messages[0] = { role: 'system', content: text };
    else state.messages.unshift({ role: 'system', content: text });
  };

  /** An Inference API model must be one it lists (a trained LoRA, by artifact, need not be). */
  const checkModel = async (model: string, api: ChatApi) => {
    if (api !== 'inference' || model.startsWith('wandb-artifact:')) return;
    if (!inferenceModels) {
      const client = await clientFor('inference');
      const where = { method: 'GET', url: `${ctx.serviceUrl('inference')}/models`, timeoutMs: ctx.timeoutMs };
      const page = await sdkCall(client, where, () => client.models.list());
      inferenceModels = new Set(page.data.map((m) => m.id));
    }
    if (!inferenceModels.has(model))
      throw new UsageError(`${model} is not a model of the Inference API (aip models list shows them)`);
  };

  /** Runs a /command; true means leave. */
  const command = async (line: string): Promise<boolean> => {
    const [name = '', ...rest] = line.slice(1).split(/\s+/);
    const arg = rest.join(' ').trim();
    switch (name) {
      case 'exit':
      case 'quit':
        return true;
      case 'help':
        for (const h of HELP) io.err(h);
        break;
      case 'system':
        if (!arg)
          io.err(
            state.messages[0]?.role === 'system' ? String(state.messages[0].content) : '(no system prompt)',
          );
        else {
          setSystem(arg);
          io.err('(system prompt set)');
        }
        break;
      case 'model':
        if (!arg) io.err(`${state.model} (${state.api} API)`);
        else {
          const next = resolveChatModel(ctx, arg, state.apiFlag);
          await checkModel(next.model, next.api);
          Object.assign(state, next);
          io.err(`(now ${state.model} on the ${state.api} API)`);
        }
        break;
      case 'reset': {
        state.messages = state.messages.filter((m) => m.role === 'system').slice(0, 1);
        // The file keeps the conversation it holds; it is not overwritten with an empty one.
        const detached = state.transcript;
        state.transcript = undefined;
        io.err(
          detached
            ? `(conversation forgotten; ${detached} keeps the earlier one and is no longer written: /save FILE writes this one)`
            : '(conversation forgotten)',
        );
        break;
      }
      case 'save': {
        const file = arg || state.transcript;
        if (!file) io.err('/save needs a file name');
        else {
          saveTranscript(file, state.messages, KEPT);
          io.err(`(saved ${state.messages.length} messages to ${file})`);
        }
        break;
      }
      default:
        io.err(`unknown command /${name}: /help lists them`);
    }
    return false;
  };

  const turn = async (text: string) => {
    state.messages.push({ role: 'user', content: text });
    reply = new AbortController();
    screen.muted = true;
    const endSpan = state.tracer?.start({ model: state.model, api: state.api, params: state.params });
    let streamed = false;
    try {
      const outcome = await complete(
        ctx,
        { model: state.model, api: state.api, messages: state.messages, params: state.params },
        {
          stream: state.stream,
          signal: reply.signal,
          client: await clientFor(state.api),
          onText: (piece) => {
            streamed = true;
            io.write(piece);
          },
        },
      );
      const noText = noTextError(outcome);
      if (noText) {
        // Nothing to show or keep: the question is taken back, as after a failed turn.
        state.messages.pop();
        report(noText, io, false);
        await endSpan?.(outcome);
        return;
      }
      if (streamed) io.write('\n');
      else if (!state.stream && !outcome.interrupted) io.out(outcome.content);
      if (outcome.interrupted) {
        // A stopped reply stays on the screen, but the conversation (and so the transcript) holds
        // whole turns only: it is taken back with its question, as after a failed turn, so that
        // neither the next request nor a later --continue takes part of an answer for all of it
        // (llm keeps no stopped reply either). The question can be asked again.
        state.messages.pop();
        io.err(outcome.content ? '(stopped: this reply is not kept in the conversation)' : '(stopped)');
        if (state.usage) io.err(usageLine(outcome.usage));
        await endSpan?.(outcome);
        return;
      }
      state.messages.push({ role: 'assistant', content: outcome.content });
      if (state.usage) io.err(usageLine(outcome.usage));
      if (state.transcript) {
        // Said, and the turn stands: the reply is on the screen and in the conversation.
        try {
          saveTranscript(state.transcript, state.messages, KEPT);
        } catch (error) {
          report(error, io, ctx.globals.debug === true);
        }
      }
      await endSpan?.(outcome);
    } catch (error) {
      if (streamed) io.write('\n');
      await endSpan?.({ error });
      // The turn failed: take the question back, so that it can simply be asked again.
      if (state.messages.at(-1)?.role === 'user') state.messages.pop();
      report(error, io, ctx.globals.debug === true);
    } finally {
      reply = undefined;
      screen.muted = false;
    }
  };

  return new Promise<void>((resolve, reject) => {
    /** Lines typed while a reply or a command was running: their turn comes after it. */
    const queue: Array<{ line: string; typedAhead: boolean }> = [];
    let busy = false;
    let terminated = false;
    // SIGTERM (a session being closed, a runner cancelling): the reply stops, the conversation is
    // left as it would be by Ctrl-D, and aip exits 143.
    const onTerminate = () => {
      terminated = true;
      ctx.stopSignal = 'SIGTERM';
      rl.close();
    };
    ctx.deps.signals.once('SIGTERM', onTerminate);
    const finish = () => {
      ctx.deps.signals.off('SIGTERM', onTerminate);
      io.errWrite('\n');
      if (terminated) reject(new InterruptedError(undefined, 'SIGTERM'));
      else resolve();
    };

    /** One line of input: a message, part of a """ block, or a /command. True means leave. */
    const handle = async (line: string): Promise<boolean> => {
      if (block) {
        if (line.trim() === FENCE) {
          const text = block.join('\n');
          block = undefined;
          rl.setPrompt(PROMPT);
          if (text.trim()) await turn(text);
        } else block.push(line);
        return false;
      }
      const trimmed = line.trim();
      if (!trimmed) return false;
      if (trimmed === FENCE) {
        block = [];
        rl.setPrompt(MORE);
        return false;
      }
      if (trimmed.startsWith('/')) {
        try {
          return await command(trimmed);
        } catch (error) {
          // A /model that cannot be, a /save that cannot write: said, and the conversation goes on.
          report(error, io, ctx.globals.debug === true);
          return false;
        }
      }
      await turn(line);
      return false;
    };

    const drain = async () => {
      busy = true;
      while (queue.length > 0 && !closed) {
        const { line, typedAhead } = queue.shift()!;
        // A line typed during a reply was not echoed: show it now that its turn has come.
        if (typedAhead) io.errWrite(`${rl.getPrompt()}${line}\n`);
        if (await handle(line)) {
          closed = true;
          rl.close();
        }
      }
      busy = false;
      if (closed) finish();
      else rl.prompt(true);
    };

    rl.on('line', (line) => {
      queue.push({ line, typedAhead: busy });
      if (!busy) void drain();
    });
    rl.on('SIGINT', () => {
      if (reply) return reply.abort();
      if (block) {
        block = undefined;
        rl.setPrompt(PROMPT);
        io.errWrite('\n(message discarded)\n');
      } else if (rl.line) {
        // As a shell does: Ctrl-C drops what was typed.
        rl.write(null, { ctrl: true, name: 'e' });
        rl.write(null, { ctrl: true, name: 'u' });
        io.errWrite('^C\n');
      } else io.errWrite('\n(Ctrl-D or /exit to leave)\n');
      rl.prompt();
    });
    rl.on('close', () => {
      closed = true;
      // Ctrl-D, even during a reply: stop it, drop what was waiting, and leave once it has ended.
      queue.length = 0;
      reply?.abort();
      if (!busy) finish();
    });
    rl.prompt();
  });
}
