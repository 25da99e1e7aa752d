// One command line run on its tree, as main() and each call of `aip mcp` run one: parsed and run, its
// error reported once on the context's IO and made an exit code, and its history ended either way.
// What only a process's main() does around it (a pager, SIGTERM's code, a CI runner's annotation) is
// its caller's, through the two hooks.

import type { Command } from 'commander';
import type { Context } from './context.js';
import { ExitCode } from './errors/errors.js';
import { failureMessage, report } from './errors/report.js';

export interface CommandLineHooks {
  /** After a run that threw nothing; what it throws is the run's error. */
  afterRun?: () => Promise<void>;
  /** The error as it is to be reported (main: a pager closed first, SIGTERM said as such). */
  errorOf?: (caught: unknown) => Promise<unknown>;
}

export interface CommandLineEnd {
  code: number;
  /** The error reported, if the run failed. */
  error?: unknown;
  debug: boolean;
}

export async function runCommandLine(
  ctx: Context,
  program: Command,
  argv: string[],
  hooks: CommandLineHooks = {},
): Promise<CommandLineEnd> {
  const debug = () => ctx.globals.debug === true || argv.includes('--debug');
  try {
    await program.parseAsync(argv, { from: 'user' });
    await hooks.afterRun?.();
    ctx.history.end(ExitCode.ok);
    await ctx.history.tidy();
    return { code: ExitCode.ok, debug: debug() };
  } catch (caught) {
    const error = hooks.errorOf ? await hooks.errorOf(caught) : caught;
    const code = report(error, ctx.io, debug());
    ctx.history.end(code, failureMessage(error, false)?.line);
    await ctx.history.tidy();
    return { code, error, debug: debug() };
  }
}
