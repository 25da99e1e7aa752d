// `aip mcp`: the server (src/mcp/server.ts) over the IO's stdin and stdout, with the global options it
// was given (--profile, --project, the URLs, --max-retries, --timeout, --debug) handed to every call,
// until the client closes stdin (exit 0, once the calls under way are answered) or Ctrl-C / SIGTERM
// stops it (130 / 143).

import type { Command } from 'commander';
import type { Context } from '../../context.js';
import { InterruptedError } from '../../errors/errors.js';
import type { BuildProgram } from '../../mcp/runner.js';
import { DEFAULT_HEARTBEAT_SECONDS, serveMcp } from '../../mcp/server.js';
import type { Parent } from '../types.js';
import type { McpOptions } from './mcp.js';

/** The server's global options, as words that come before each call's verb. */
export function forwardedGlobals(ctx: Context): string[] {
  const g = ctx.globals;
  const words: string[] = [];
  const value = (flag: string, v: string | number | undefined) => {
    if (v !== undefined) words.push(`${flag}=${v}`);
  };
  value('--profile', g.profile);
  value('--project', g.project);
  value('--base-url', g.baseUrl);
  value('--inference-url', g.inferenceUrl);
  value('--trace-url', g.traceUrl);
  value('--max-retries', g.maxRetries);
  value('--timeout', g.timeout);
  if (g.debug) words.push('--debug');
  return words;
}

export async function runMcp(
  ctx: Context,
  root: Parent,
  options: McpOptions,
  build: BuildProgram,
): Promise<void> {
  const { io } = ctx;
  // A call is a command of its own, not a CI step: it writes no workflow commands.
  const { GITHUB_ACTIONS: _, ...callEnv } = ctx.env;
  // Read-only changes nothing, aip's own records included: its calls keep no history.
  const env = options.readOnly ? { ...callEnv, AIP_HISTORY: 'off' } : callEnv;
  // Stopped at once by Ctrl-C, SIGTERM, or the client gone from stdout (EPIPE).
  const { signal, release } = ctx.interruptible({ orStdoutClosed: true });
  try {
    await serveMcp({
      root: root as unknown as Command,
      build,
      deps: ctx.deps,
      env,
      globalArgs: forwardedGlobals(ctx),
      readOnly: options.readOnly === true,
      allowCommands: options.allowCommands === true,
      heartbeatMs: (options.heartbeat ?? DEFAULT_HEARTBEAT_SECONDS) * 1000,
      log: (line) => io.err(line),
      stop: signal,
      stdin: io.stdin,
      // JSON-RPC as it is: IO.write would render (and so change) characters a terminal acts on.
      stdout: {
        write: (chunk) => {
          io.writeBytes(Buffer.from(chunk, 'utf8'));
          return true;
        },
        once: () => undefined,
      },
    });
  } finally {
    release();
  }
  if (ctx.stopSignal) throw new InterruptedError(undefined, ctx.stopSignal);
}
