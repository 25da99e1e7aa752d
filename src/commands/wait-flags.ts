// What the waiting verbs share (jobs wait, jobs create --wait, train rl): the --stall flag, and the command line
// as given, which a step summary on GitHub Actions shows as the command that reproduces the step.

import { InvalidArgumentError } from '@commander-js/extra-typings';
import { parseDuration } from '../output/time.js';

export const STALL_FLAG = '--stall <duration>';
export const STALL_HELP =
  'end the wait (exit 8) when no new event comes for this long: seconds, or 90s, 15m, 1h (the job keeps running)';

/** --stall: a duration, kept as given (for the resume command) with its length in ms. */
export function parseStall(value: string): { text: string; ms: number } {
  const ms = parseDuration(value);
  if (ms === undefined)
    throw new InvalidArgumentError('expected a duration above 0: seconds (90), or 90s, 15m, 1h, 1h30m');
  return { text: value.trim(), ms };
}

/** The command line as it was given (the words after `aip`), from commander's record of the parse. */
export function givenWords(command: { parent: unknown }): string[] {
  let root = command as { parent?: unknown; rawArgs?: unknown };
  while (root.parent) root = root.parent as typeof root;
  return Array.isArray(root.rawArgs) ? root.rawArgs.map(String) : [];
}
