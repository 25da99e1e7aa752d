// Runs one verb for `aip mcp` as a command line would run it, in this process: a fresh Context
// (settings, clients, history) and a fresh tree for every call, run by main()'s own runCommandLine
// (parsed, its error reported and mapped to an exit code, its history ended), with an IO of its own (stdout kept as the
// result; stderr's lines handed on as they come, for progress and the server's log), stdin empty and
// no terminal anywhere, so nothing prompts, pages or draws. The modules keep no state of a command's
// between calls, so calls run side by side. The client's cancellation is Ctrl-C: 'SIGINT' on the
// run's own signals, which ctx.interruptible() listens to (a wait stops, says how to resume, exit
// 130); a command that is not waiting finishes what it sends.
//
// The tree's builder is handed down from program.ts (BuildProgram) rather than imported: the mcp verb
// is in the tree it runs, and src/ has no import cycles (test/architecture/imports.test.ts). What
// main() does besides is for a terminal or a CI runner (a pager, SIGTERM's exit code, the runner's
// line guard and annotations), none of which a call has: its environment has no GITHUB_ACTIONS.

import { EventEmitter } from 'node:events';
import { PassThrough } from 'node:stream';
import type { Command } from 'commander';
import { Context, type Deps } from '../context.js';
import { IO, type OutStream } from '../output/io.js';
import { redactSecrets, redactUrlSecrets, rememberSecret } from '../output/secrets.js';
import { runCommandLine } from '../run-command-line.js';
import type { Env } from '../settings/global-options.js';

/** program.ts's buildProgram. */
export type BuildProgram = (ctx: Context, options: { deferVerbs?: boolean }) => Command;

/** One command line, as main() runs it (run-command-line.ts): its exit code. */
async function runLine(argv: string[], deps: Deps, build: BuildProgram): Promise<number> {
  for (const name of ['AIP_API_KEY', 'WANDB_API_KEY']) rememberSecret(deps.env[name]);
  const ctx = new Context(deps);
  ctx.argv = argv;
  return (await runCommandLine(ctx, build(ctx, { deferVerbs: true }), argv)).code;
}

export interface VerbRun {
  code: number;
  stdout: string;
  stderr: string;
  /**
   * Why stdout is not the command's output: it passed MAX_OUTPUT_CHARS (the run was interrupted
   * then), or it was bytes, not text (a protobuf file written to stdout).
   */
  unusable?: 'too large' | 'binary';
}

/**
 * The most of a call's stdout kept as its result: past it, the run is interrupted and the call fails
 * (a result is for a model to read; a file is for `output`). Unbounded, one large output (traces
 * generate of a million spans) ended the whole server, every other call with it.
 */
export const MAX_OUTPUT_CHARS = 16 * 1024 * 1024;
/** The end of stderr kept (its error line is last); every line is handed on as it comes all the same. */
const MAX_STDERR_CHARS = 1024 * 1024;

export interface RunVerbOptions {
  env: Env;
  /** Aborted: the run is interrupted as by Ctrl-C. */
  signal?: AbortSignal;
  /** Each line the command writes to stderr (progress, warnings, the error), as it is written. */
  onLine?: (line: string) => void;
  build: BuildProgram;
  /** The server's own: its transport, sleep and randomness (tests give theirs to main()). */
  deps: Deps;
}

/** Every text that leaves the server goes through this: keys, in any form aip knows, are masked. */
export function redact(text: string): string {
  return redactUrlSecrets(redactSecrets(text));
}

interface KeptStream extends OutStream {
  text: string;
  unusable?: 'too large' | 'binary';
  flush(): void;
}

/**
 * A stream that keeps what is written (up to `limit` characters: past it, `overflow` keeps the end or
 * drops the rest), and hands on each complete line.
 */
function lineStream(
  limit: number,
  overflow: 'keep the end' | 'drop the rest',
  onLine?: (line: string) => void,
  onUnusable?: () => void,
): KeptStream {
  let pending = '';
  const stream: KeptStream = {
    text: '',
    isTTY: false,
    write(chunk: string | Uint8Array) {
      if (typeof chunk !== 'string') {
        stream.unusable ??= 'binary';
        onUnusable?.();
        return true;
      }
      if (stream.unusable) return true;
      stream.text += chunk;
      if (stream.text.length > limit) {
        if (overflow === 'keep the end') stream.text = stream.text.slice(-limit / 2);
        else {
          stream.text = '';
          stream.unusable = 'too large';
          onUnusable?.();
          return true;
        }
      }
      if (!onLine) return true;
      pending += chunk;
      let newline = pending.indexOf('\n');
      while (newline >= 0) {
        const line = pending.slice(0, newline).replace(/\r$/, '');
        pending = pending.slice(newline + 1);
        if (line.trim()) onLine?.(line);
        newline = pending.indexOf('\n');
      }
      return true;
    },
    flush() {
      if (pending.trim()) onLine?.(pending);
      pending = '';
    },
  };
  return stream;
}

export async function runVerb(argv: string[], options: RunVerbOptions): Promise<VerbRun> {
  // An output that cannot be the result stops the run, as Ctrl-C would (interrupt is hoisted).
  const stdout = lineStream(MAX_OUTPUT_CHARS, 'drop the rest', undefined, () => interrupt());
  const stderr = lineStream(MAX_STDERR_CHARS, 'keep the end', options.onLine);
  const stdin = new PassThrough();
  stdin.end();
  const io = new IO(
    { stdout, stderr, stdin, stdoutIsTTY: false, stderrIsTTY: false, stdinIsTTY: false },
    options.env,
  );
  const signals = new EventEmitter();
  let interrupted = false;
  function interrupt() {
    if (interrupted) return;
    interrupted = true;
    signals.emit('SIGINT');
    // A wait that begins after the cancellation (the command was still sending) is interrupted too.
    signals.on('newListener', (event) => {
      if (event === 'SIGINT') setImmediate(() => signals.emit('SIGINT'));
    });
  }
  if (options.signal?.aborted) interrupt();
  else options.signal?.addEventListener('abort', interrupt, { once: true });
  try {
    const deps: Deps = { ...options.deps, env: options.env, io, signals };
    const code = await runLine(argv, deps, options.build);
    stderr.flush();
    return {
      code,
      stdout: stdout.text,
      stderr: stderr.text,
      ...(stdout.unusable ? { unusable: stdout.unusable } : {}),
    };
  } finally {
    options.signal?.removeEventListener('abort', interrupt);
  }
}
