// How a failure is told: one line on stderr (error: what failed; what to do), the detail lines under
// it, the stack only with --debug; and the exit code it maps to. main() uses it for the command's end,
// the chat REPL for a turn that failed without ending the conversation.

import { CommanderError } from 'commander';
import type { IO } from '../output/io.js';
import { ChildExitError, CliError, ExitCode, exitCodeFor } from './errors.js';

/** Commander's own outcomes: help and version are successes; anything else is a usage error. */
function commanderExitCode(error: CommanderError): number {
  if (error.code === 'commander.helpDisplayed' || error.code === 'commander.version') return ExitCode.ok;
  return ExitCode.usage;
}

export function report(error: unknown, io: IO, debug: boolean): number {
  if (error instanceof CommanderError) return commanderExitCode(error);
  if (error instanceof ChildExitError) return exitCodeFor(error);
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
