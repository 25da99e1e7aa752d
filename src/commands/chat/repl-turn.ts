// One turn of the REPL: the user's message sent with the conversation, the reply shown as it comes,
// and the conversation (and its --continue file) left holding whole turns only. A turn never throws:
// whatever goes wrong is said, and the conversation goes on.

import { type ChatOutcome, complete, noTextError } from '../../chat/complete.js';
import type { ChatSession } from '../../chat/session.js';
import type { Context } from '../../context.js';
import { report } from '../../errors/report.js';
import { KEPT } from './slash-commands.js';
import { usageLine } from './usage.js';

export interface TurnOptions {
  stream: boolean;
  /** --usage: the token counts of each reply on stderr. */
  usage: boolean;
  /** Ctrl-C stops the reply. */
  signal: AbortSignal;
}

export async function replTurn(
  ctx: Context,
  session: ChatSession,
  text: string,
  options: TurnOptions,
): Promise<void> {
  const { io } = ctx;
  session.ask(text);
  const endSpan = session.startSpan();
  let streamed = false;
  try {
    const outcome = await complete(ctx, session.request, {
      stream: options.stream,
      signal: options.signal,
      client: await session.client(),
      onText: (piece) => {
        streamed = true;
        io.write(piece);
      },
    });
    settleReply(ctx, session, outcome, streamed, options);
    await endSpan?.(outcome);
  } catch (error) {
    if (streamed) io.write('\n');
    await endSpan?.({ error });
    // The turn failed: take the question back, so that it can simply be asked again.
    session.takeBack();
    report(error, io, ctx.globals.debug === true);
  }
}

/** A reply that came: on the screen, and, when it is whole and has text, in the conversation. */
function settleReply(
  ctx: Context,
  session: ChatSession,
  outcome: ChatOutcome,
  streamed: boolean,
  options: TurnOptions,
): void {
  const { io } = ctx;
  const noText = noTextError(outcome);
  if (noText) {
    // Nothing to show or keep: the question is taken back, as after a failed turn.
    session.takeBack();
    report(noText, io, false);
    return;
  }
  if (streamed) io.write('\n');
  else if (!options.stream && !outcome.interrupted) io.out(outcome.content);
  if (outcome.interrupted) {
    // A stopped reply stays on the screen, but the conversation (and so the transcript) holds
    // whole turns only: it is taken back with its question, as after a failed turn, so that
    // neither the next request nor a later --continue takes part of an answer for all of it
    // (llm keeps no stopped reply either). The question can be asked again.
    session.takeBack();
    io.err(outcome.content ? '(stopped: this reply is not kept in the conversation)' : '(stopped)');
    if (options.usage) io.err(usageLine(outcome.usage));
    return;
  }
  session.keepReply(outcome.content);
  if (options.usage) io.err(usageLine(outcome.usage));
  if (!session.transcript) return;
  // Said, and the turn stands: the reply is on the screen and in the conversation.
  try {
    session.save(session.transcript, KEPT);
  } catch (error) {
    report(error, io, ctx.globals.debug === true);
  }
}
