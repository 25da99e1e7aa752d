// main(argv) → exit code. The only place where an error becomes a message and an exit status; commands
// never call process.exit. Tests call main() in-process with their own IO, environment and fetch.

import { CommanderError } from 'commander';
import { nodeTransport } from './api/transport.js';
import { Context, type Deps } from './context.js';
import { CliError, ExitCode, exitCodeFor } from './errors.js';
import { type IO, processIO } from './output/io.js';
import { buildProgram } from './program.js';

/** Commander's own outcomes: help and version are successes; anything else is a usage error. */
function commanderExitCode(error: CommanderError): number {
  if (error.code === 'commander.helpDisplayed' || error.code === 'commander.version') return ExitCode.ok;
  return ExitCode.usage;
}

function report(error: unknown, io: IO, debug: boolean): number {
  if (error instanceof CommanderError) return commanderExitCode(error);
  const red = io.errStyle.red;
  if (error instanceof CliError) {
    io.err(`${red('error:')} ${error.message}${error.hint ? `; ${error.hint}` : ''}`);
    for (const line of error.details) io.err(`  ${line}`);
  } else {
    // Not an error we anticipated: a bug. Say so plainly; the stack is for --debug.
    const message = error instanceof Error ? error.message : String(error);
    io.err(
      `${red('error:')} unexpected failure: ${message}${debug ? '' : ' (run with --debug for details)'}`,
    );
  }
  if (debug && error instanceof Error && error.stack) io.err(io.errStyle.dim(error.stack));
  return exitCodeFor(error);
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}

export async function main(argv: string[], overrides: Partial<Deps> = {}): Promise<number> {
  const env = overrides.env ?? process.env;
  const deps: Deps = {
    env,
    io: overrides.io ?? processIO(env),
    transport: overrides.transport ?? nodeTransport,
    sleep: overrides.sleep ?? sleep,
    random: overrides.random ?? Math.random,
    signals: overrides.signals ?? process,
  };
  const ctx = new Context(deps);
  try {
    await buildProgram(ctx).parseAsync(argv, { from: 'user' });
    return ExitCode.ok;
  } catch (error) {
    return report(error, deps.io, ctx.globals.debug === true || argv.includes('--debug'));
  }
}
