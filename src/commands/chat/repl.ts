// `aip chat` with no prompt on a terminal: a conversation. Replies go to stdout; the prompt and notes
// go to stderr. The conversation is kept for the session (and written to the --continue file after
// each turn). Ctrl-C stops a reply without leaving, Ctrl-D (or /exit) leaves, a line of """ starts
// and ends a message of several lines. While a reply is coming, what is typed is not echoed into it:
// finished lines wait their turn, and an unfinished one reappears at the next prompt.
//
// The conversation is a ChatSession (src/chat/session.ts), its slash commands a table
// (slash-commands.ts), a turn replTurn (repl-turn.ts); what is here is the terminal's side.

import type { Interface } from 'node:readline';
import { Writable } from 'node:stream';
import type { ChatSession } from '../../chat/session.js';
import type { Context } from '../../context.js';
import { InterruptedError } from '../../errors/errors.js';
import { report } from '../../errors/report.js';
import { plural } from '../../output/plural.js';
import { replTurn } from './repl-turn.js';
import { runSlashCommand } from './slash-commands.js';

export interface ReplOptions {
  stream: boolean;
  usage: boolean;
}

const FENCE = '"""';
const PROMPT = '> ';
const MORE = '… ';

type Screen = Writable & { muted: boolean };

/** stderr, for readline, with a switch that silences it (its echo of keys typed during a reply). */
function switchableScreen(stderr: NodeJS.WritableStream): Screen {
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

export async function runRepl(ctx: Context, session: ChatSession, options: ReplOptions): Promise<void> {
  const { io } = ctx;
  const { createInterface } = await import('node:readline');
  await session.client();
  const { model, api, messages } = session;
  io.info(
    `Chatting with ${model} on the ${api} API${messages.length ? ` (${plural(messages.length, 'message')} so far)` : ''}. /help for commands, Ctrl-D to leave.`,
  );
  const screen = switchableScreen(io.stderrStream);
  const rl = createInterface({ input: io.stdin, output: screen, terminal: true, historySize: 200 });
  rl.setPrompt(PROMPT);
  return new Repl(ctx, session, options, rl, screen).run();
}

/** The terminal's side of a conversation: lines in, in order, one at a time; Ctrl-C, Ctrl-D, SIGTERM. */
class Repl {
  /** Lines typed while a reply or a command was running: their turn comes after it. */
  private readonly queue: Array<{ line: string; typedAhead: boolean }> = [];
  private busy = false;
  private closed = false;
  /** SIGTERM (a session being closed, a runner cancelling): left as by Ctrl-D, and aip exits 143. */
  private terminated = false;
  /** The reply coming, which Ctrl-C (and Ctrl-D) stops. */
  private reply: AbortController | undefined;
  /** The lines of a """ message so far. */
  private block: string[] | undefined;
  private settle: { resolve: () => void; reject: (error: unknown) => void } | undefined;

  constructor(
    private readonly ctx: Context,
    private readonly session: ChatSession,
    private readonly options: ReplOptions,
    private readonly rl: Interface,
    private readonly screen: Screen,
  ) {}

  run(): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.settle = { resolve, reject };
      this.ctx.deps.signals.once('SIGTERM', this.onTerminate);
      this.rl.on('line', (line) => {
        this.queue.push({ line, typedAhead: this.busy });
        if (!this.busy) void this.drain();
      });
      this.rl.on('SIGINT', this.onInterrupt);
      this.rl.on('close', this.onClose);
      this.rl.prompt();
    });
  }

  private readonly onTerminate = () => {
    this.terminated = true;
    this.ctx.stopSignal = 'SIGTERM';
    this.rl.close();
  };

  private finish(): void {
    this.ctx.deps.signals.off('SIGTERM', this.onTerminate);
    this.ctx.io.errWrite('\n');
    if (this.terminated) this.settle?.reject(new InterruptedError(undefined, 'SIGTERM'));
    else this.settle?.resolve();
  }

  private async drain(): Promise<void> {
    this.busy = true;
    while (this.queue.length > 0 && !this.closed) {
      const { line, typedAhead } = this.queue.shift()!;
      // A line typed during a reply was not echoed: show it now that its turn has come.
      if (typedAhead) this.ctx.io.errWrite(`${this.rl.getPrompt()}${line}\n`);
      if (await this.handle(line)) {
        this.closed = true;
        this.rl.close();
      }
    }
    this.busy = false;
    if (this.closed) this.finish();
    else this.rl.prompt(true);
  }

  /** One line of input: a message, part of a """ block, or a /command. True means leave. */
  private async handle(line: string): Promise<boolean> {
    if (this.block) {
      if (line.trim() !== FENCE) this.block.push(line);
      else {
        const text = this.block.join('\n');
        this.endBlock();
        if (text.trim()) await this.turn(text);
      }
      return false;
    }
    const trimmed = line.trim();
    if (!trimmed) return false;
    if (trimmed === FENCE) {
      this.block = [];
      this.rl.setPrompt(MORE);
      return false;
    }
    if (trimmed.startsWith('/')) return this.slashCommand(trimmed);
    await this.turn(line);
    return false;
  }

  private endBlock(): void {
    this.block = undefined;
    this.rl.setPrompt(PROMPT);
  }

  /** True means leave. */
  private async slashCommand(line: string): Promise<boolean> {
    try {
      const { notes, leave } = await runSlashCommand(this.session, line);
      for (const note of notes) this.ctx.io.err(note);
      return leave === true;
    } catch (error) {
      // A /model that cannot be, a /save that cannot write: said, and the conversation goes on.
      report(error, this.ctx.io, this.ctx.globals.debug === true);
      return false;
    }
  }

  private async turn(text: string): Promise<void> {
    this.reply = new AbortController();
    this.screen.muted = true;
    try {
      await replTurn(this.ctx, this.session, text, { ...this.options, signal: this.reply.signal });
    } finally {
      this.reply = undefined;
      this.screen.muted = false;
    }
  }

  private readonly onInterrupt = () => {
    const { io } = this.ctx;
    if (this.reply) return this.reply.abort();
    if (this.block) {
      this.endBlock();
      io.errWrite('\n(message discarded)\n');
    } else if (this.rl.line) {
      // As a shell does: Ctrl-C drops what was typed.
      this.rl.write(null, { ctrl: true, name: 'e' });
      this.rl.write(null, { ctrl: true, name: 'u' });
      io.errWrite('^C\n');
    } else io.errWrite('\n(Ctrl-D or /exit to leave)\n');
    this.rl.prompt();
  };

  private readonly onClose = () => {
    this.closed = true;
    // Ctrl-D, even during a reply: stop it, drop what was waiting, and leave once it has ended.
    this.queue.length = 0;
    this.reply?.abort();
    if (!this.busy) this.finish();
  };
}
