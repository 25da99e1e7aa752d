// `aip chat` with no prompt on a terminal: a conversation. Replies stream to stdout; the prompt and
// notes go to stderr. History is kept for the session (and saved to the --continue file after each
// turn). Ctrl-C stops a reply without leaving; Ctrl-D (or /exit) leaves.

import type OpenAI from 'openai';
import { openaiClient } from '../../api/openai.js';
import { complete } from '../../chat/complete.js';
import { resolveChatModel } from '../../chat/model.js';
import { saveTranscript } from '../../chat/transcript.js';
import type { ChatApi, ChatMessage } from '../../chat/types.js';
import type { Context } from '../../context.js';
import { report } from '../../report.js';

export interface ReplState {
  model: string;
  api: ChatApi;
  messages: ChatMessage[];
  params: Record<string, unknown>;
  /** The --continue file, saved after each turn. */
  transcript: string | undefined;
}

const HELP = [
  '/system [text]  show or set the system prompt',
  '/model [name]   show or change the model',
  '/reset          forget the conversation (the system prompt stays)',
  '/save <file>    write the conversation as JSON Lines',
  '/exit           leave (or Ctrl-D)',
];

export async function runRepl(ctx: Context, state: ReplState): Promise<void> {
  const { io } = ctx;
  const { createInterface } = await import('node:readline');
  const clients = new Map<ChatApi, OpenAI>();
  const clientFor = async (api: ChatApi) => {
    if (!clients.has(api)) clients.set(api, await openaiClient(ctx, api));
    return clients.get(api)!;
  };
  await clientFor(state.api);
  io.info(
    `Chatting with ${state.model} on the ${state.api} API${state.messages.length ? ` (${state.messages.length} messages so far)` : ''}. /help for commands, Ctrl-D to leave.`,
  );

  const rl = createInterface({
    input: io.stdin,
    output: io.stderrStream,
    terminal: true,
    prompt: '> ',
    historySize: 200,
  });
  let reply: AbortController | undefined;

  const command = (line: string): boolean => {
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
          if (state.messages[0]?.role === 'system') state.messages[0] = { role: 'system', content: arg };
          else state.messages.unshift({ role: 'system', content: arg });
          io.err('(system prompt set)');
        }
        break;
      case 'model':
        if (!arg) io.err(`${state.model} (${state.api} API)`);
        else {
          Object.assign(state, resolveChatModel(ctx, arg, undefined));
          io.err(`(now ${state.model} on the ${state.api} API)`);
        }
        break;
      case 'reset':
        state.messages = state.messages.filter((m) => m.role === 'system').slice(0, 1);
        io.err('(conversation forgotten)');
        break;
      case 'save': {
        const file = arg || state.transcript;
        if (!file) io.err('/save needs a file name');
        else {
          saveTranscript(file, state.messages);
          io.err(`(saved ${state.messages.length} messages to ${file})`);
        }
        break;
      }
      default:
        io.err(`unknown command /${name}: /help lists them`);
    }
    return false;
  };

  const turn = async (line: string) => {
    state.messages.push({ role: 'user', content: line });
    reply = new AbortController();
    let streamed = false;
    try {
      const outcome = await complete(
        ctx,
        { ...state },
        {
          stream: true,
          signal: reply.signal,
          client: await clientFor(state.api),
          onText: (text) => {
            streamed = true;
            io.write(text);
          },
        },
      );
      if (streamed) io.write('\n');
      // What the user saw is what the conversation holds, a stopped reply included.
      if (outcome.content) state.messages.push({ role: 'assistant', content: outcome.content });
      if (outcome.interrupted) io.err('(stopped)');
      if (state.transcript) saveTranscript(state.transcript, state.messages);
    } catch (error) {
      if (streamed) io.write('\n');
      // The turn failed: take the question back, so that it can simply be asked again.
      state.messages.pop();
      report(error, io, ctx.globals.debug === true);
    } finally {
      reply = undefined;
    }
  };

  return new Promise<void>((resolve) => {
    const queue: string[] = [];
    let busy = false;
    const drain = async () => {
      busy = true;
      while (queue.length > 0) {
        const line = queue.shift()!.trim();
        if (!line) continue;
        if (line.startsWith('/')) {
          let leave = false;
          try {
            leave = command(line);
          } catch (error) {
            // A bad /model name, a /save that cannot write: said, and the conversation goes on.
            report(error, io, ctx.globals.debug === true);
          }
          if (leave) {
            rl.close();
            return;
          }
        } else await turn(line);
      }
      busy = false;
      rl.prompt();
    };
    rl.on('line', (line) => {
      queue.push(line);
      if (!busy) void drain();
    });
    rl.on('SIGINT', () => {
      if (reply) return reply.abort();
      io.errWrite('\n(Ctrl-D or /exit to leave)\n');
      rl.prompt();
    });
    rl.on('close', () => {
      reply?.abort();
      io.errWrite('\n');
      resolve();
    });
    rl.prompt();
  });
}
