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

/**
 * What the failure says: its line (without "error:") and the detail lines under it; undefined when
 * aip has nothing to say (help, --version, a child's own exit status). Commander has printed its
 * usage errors itself: their message is given here for CI (ci/failure.ts), and not printed again.
 */
export function failureMessage(
  error: unknown,
  debug: boolean,
): { line: string; details: string[] } | undefined {
  if (error instanceof CommanderError) {
    if (commanderExitCode(error) === ExitCode.ok) return undefined;
    return { line: error.message.replace(/^error: /, ''), details: [] };
  }
  if (error instanceof ChildExitError) return undefined;
  if (error instanceof CliError) {
    return { line: `${error.message}${error.hint ? `; ${error.hint}` : ''}`, details: error.details };
  }
  // Not an error we anticipated: a bug. Say so plainly; the stack is for --debug.
  const message = error instanceof Error ? error.message : String(error);
  return {
    line: `unexpected failure: ${message}${debug ? '' : ' (run with --debug for details)'}`,
    details: [],
  };
}

export function report(error: unknown, io: IO, debug: boolean): number {
  if (error instanceof CommanderError) return commanderExitCode(error);
  const failure = failureMessage(error, debug);
  if (failure) {
    io.err(`${io.errStyle.red('error:')} ${failure.line}`);
    for (const line of failure.details) io.err(`  ${line}`);
  }
  if (debug && failure && error instanceof Error && error.stack) io.err(io.errStyle.dim(error.stack));
  return exitCodeFor(error);
}
