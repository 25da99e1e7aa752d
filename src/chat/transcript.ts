// Transcripts: JSON Lines, one chat message per line ({"role": …, "content": …}), as /save writes
// them and --continue reads them back.

import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { lineLimitFrom } from '../api/limits.js';
import { annotateProblems } from '../ci/problems.js';
import type { Context } from '../context.js';
import { UsageError } from '../errors/errors.js';
import { assertRewritable, removeStaleTemps, writeFileAtomic, writeTarget } from '../fs/atomic-write.js';
import { openSource } from '../fs/open-source.js';
import { writeError } from '../fs/write-error.js';
import { messageParam } from '../validate/chat-schema.js';
import { checkDocuments, problemLines } from '../validate/check-file.js';
import { validate } from '../validate/schema.js';
import type { ChatMessage } from './types.js';

/**
 * The messages of a transcript (none when the file does not exist yet). Each line must be a message
 * the chat APIs take; otherwise every problem is listed and nothing is sent.
 */
export async function loadTranscript(ctx: Context, file: string): Promise<ChatMessage[]> {
  if (!existsSync(file)) return [];
  const checked = await checkDocuments(
    openSource(file, ctx.io, lineLimitFrom(ctx.env)),
    (value) => validate(messageParam, value),
    {
      collect: true,
    },
  );
  if (checked.format === 'array') {
    throw new UsageError(`${file}: a transcript is JSON Lines (one message per line), not a JSON array`);
  }
  if (checked.problemCount > 0) {
    for (const line of problemLines(checked)) ctx.io.err(line);
    annotateProblems(ctx.io, checked, 'invalid transcript message');
    throw new UsageError(
      `${file}: ${checked.problemCount} problem${checked.problemCount === 1 ? '' : 's'} in the transcript; nothing was sent`,
    );
  }
  return checked.values as ChatMessage[];
}

const lines = (messages: readonly ChatMessage[]) => messages.map((m) => `${JSON.stringify(m)}\n`).join('');

/** How transcripts are written: through a link to the file it points to; a new one private (0600). */
const WRITE = { followSymlinks: true, newMode: 0o600 } as const;

/**
 * Throws unless the transcript can be written: checked before a request is sent, so that a reply
 * is never paid for and then lost. The new file is made beside the old one (beside the file a link
 * points to), so that directory must be writable too. What an earlier run killed while saving left
 * there goes now. A full disk or a quota can only be met when writing: see saveTranscript.
 */
export function assertWritable(file: string): void {
  try {
    assertRewritable(file, WRITE);
  } catch (error) {
    throw writeError(file, error, { outcome: 'nothing was sent' });
  }
  removeStaleTemps(resolve(writeTarget(file, true)));
}

/**
 * Writes the whole transcript, atomically (src/fs/atomic-write.ts: never half a file, even when the
 * process is killed). An existing file keeps its mode (and owner and group); a new one is made 0600,
 * as it holds a conversation; a symbolic link stays one, and the file it points to is what is
 * rewritten. When it cannot be written the file is as it was, and the error says so: exit 1, as the
 * reply was received (it is on the screen) but is not in the file.
 */
export function saveTranscript(file: string, messages: readonly ChatMessage[], outcome?: string): void {
  try {
    writeFileAtomic(file, lines(messages), WRITE);
  } catch (error) {
    throw writeError(file, error, {
      exit: 'error',
      outcome: outcome ?? `the reply above was not saved: ${file} holds the conversation before it`,
    });
  }
}
