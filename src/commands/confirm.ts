// Confirmation of destructive actions (product.md §2): asked on a terminal unless --yes; refused
// without --yes when nobody can answer (stdin not a terminal, or --no-input).

import type { Context } from '../context.js';
import { UsageError } from '../errors/errors.js';
import { promptLine } from '../output/prompt.js';

/** Resolves when the action may go ahead; throws (nothing done) otherwise. */
export async function confirmDestructive(ctx: Context, question: string, action: string): Promise<void> {
  if (ctx.globals.yes) return;
  if (ctx.globals.input === false || !ctx.io.isStdinTTY) {
    throw new UsageError(`refusing to ${action} without --yes: there is no terminal to confirm on`);
  }
  const answer = await promptLine(ctx.io, `${question} [y/N] `);
  if (!/^y(es)?$/i.test(answer)) throw new UsageError(`cancelled: did not ${action}`);
}
