// main(argv) → exit code. The only place where an error becomes a message and an exit status; commands
// never call process.exit. Tests call main() in-process with their own IO, environment and fetch.

import { nodeTransport } from './api/transport.js';
import { Context, type Deps } from './context.js';
import { ExitCode, InterruptedError } from './errors/errors.js';
import { report } from './errors/report.js';
import { processIO } from './output/io.js';
import { rememberSecret } from './output/secrets.js';
import { buildProgram } from './program.js';

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
  // Keys in the environment are masked from the start, whether this command uses one or not.
  for (const name of ['AIP_API_KEY', 'WANDB_API_KEY']) rememberSecret(env[name]);
  const ctx = new Context(deps);
  try {
    await buildProgram(ctx).parseAsync(argv, { from: 'user' });
    return ExitCode.ok;
  } catch (caught) {
    // Stopped by SIGTERM rather than Ctrl-C: said so, and exit 143 as a shell would report it.
    const error =
      caught instanceof InterruptedError && ctx.stopSignal === 'SIGTERM'
        ? new InterruptedError(undefined, 'SIGTERM')
        : caught;
    return report(error, deps.io, ctx.globals.debug === true || argv.includes('--debug'));
  }
}
