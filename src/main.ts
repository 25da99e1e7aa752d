// main(argv) → exit code. The only place where an error becomes a message and an exit status; commands
// never call process.exit. Tests call main() in-process with their own IO, environment and fetch.

import { nodeTransport } from './api/transport.js';
import { onGitHubActions, runnerReadsOutput } from './ci/detect.js';
import { Context, type Deps } from './context.js';
import { ExitCode, InterruptedError } from './errors/errors.js';
import { failureMessage } from './errors/report.js';
import { processIO } from './output/io.js';
import { rememberSecret } from './output/secrets.js';
import { buildProgram, wholeProgram } from './program.js';
import { runCommandLine } from './run-command-line.js';
import type { GlobalOptions } from './settings/global-options.js';

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
  // On a runner, from the first write on (a usage error quotes its words): nothing from outside may
  // read as a workflow command (ci/runner-lines.ts, loaded only there).
  if (runnerReadsOutput(env)) (await import('./ci/runner-lines.js')).guardRunnerLines(deps.io);
  const ctx = new Context(deps);
  ctx.argv = argv;
  // Only what this command line needs: a noun's verbs are added when it runs.
  const program = buildProgram(ctx, { deferVerbs: true });
  const end = await runCommandLine(ctx, program, argv, {
    // Ctrl-C while a pager had the terminal: the command was not stopped, but the user asked it to be.
    afterRun: async () => {
      if ((await deps.io.closePager()).interrupted) throw new InterruptedError();
    },
    errorOf: async (caught) => {
      // A pager has the terminal until it quits: the message comes after it, where it can be read.
      await deps.io.closePager();
      // Stopped by SIGTERM rather than Ctrl-C: said so, and exit 143 as a shell would report it.
      return caught instanceof InterruptedError && ctx.stopSignal === 'SIGTERM'
        ? new InterruptedError(undefined, 'SIGTERM')
        : caught;
    },
  });
  if (end.code === ExitCode.ok) return end.code;
  // On CI, the error as an annotation too. A usage error may come before the options reach
  // ctx.globals: the root has those parsed so far (--ci among them).
  const globals = { ...program.opts<GlobalOptions>(), ...ctx.globals };
  if (onGitHubActions(env, globals.ci)) {
    const { annotateFailure, commandPath } = await import('./ci/failure.js');
    annotateFailure(
      { env, io: deps.io, globals },
      failureMessage(end.error, end.debug),
      commandPath(wholeProgram(program), argv),
    );
  }
  return end.code;
}
