// Transcripts: JSON Lines, one chat message per line ({"role": …, "content": …}), as /save writes
// them and --continue reads them back.

import { accessSync, constants, existsSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { Context } from '../context.js';
import { CliError, UsageError } from '../errors.js';
import { removeStaleTemps, writeFileAtomic } from '../fs/atomic-write.js';
import { messageParam } from '../validate/chat-schema.js';
import { checkDocuments, openSource, problemLines } from '../validate/check-file.js';
import { validate } from '../validate/schema.js';
import type { ChatMessage } from './types.js';

/**
 * The messages of a transcript (none when the file does not exist yet). Each line must be a message
 * the chat APIs take; otherwise every problem is listed and nothing is sent.
 */
export async function loadTranscript(ctx: Context, file: string): Promise<ChatMessage[]> {
  if (!existsSync(file)) return [];
  const checked = await checkDocuments(openSource(file, ctx.io), (value) => validate(messageParam, value), {
    collect: true,
  });
  if (checked.format === 'array') {
    throw new UsageError(`${file}: a transcript is JSON Lines (one message per line), not a JSON array`);
  }
  if (checked.problemCount > 0) {
    for (const line of problemLines(checked)) ctx.io.err(line);
    throw new UsageError(
      `${file}: ${checked.problemCount} problem${checked.problemCount === 1 ? '' : 's'} in the transcript; nothing was sent`,
    );
  }
  return checked.values as ChatMessage[];
}

const lines = (messages: readonly ChatMessage[]) => messages.map((m) => `${JSON.stringify(m)}\n`).join('');

const reason = (error: unknown) => (error as NodeJS.ErrnoException).code ?? (error as Error).message;

/**
 * Throws unless the transcript can be written: checked before a request is sent, so that a reply
 * is never paid for and then lost. The new file is made beside the old one, so the directory must be
 * writable too. What an earlier run killed while saving left there goes now.
 */
export function assertWritable(file: string): void {
  try {
    if (existsSync(file)) {
      if (!statSync(file).isFile()) throw Object.assign(new Error(), { code: 'not a file' });
      accessSync(file, constants.W_OK);
    }
    accessSync(dirname(resolve(file)), constants.W_OK);
  } catch (error) {
    throw new UsageError(`cannot write ${file}: ${reason(error)}`);
  }
  removeStaleTemps(resolve(file));
}

/**
 * Writes the whole transcript, atomically (src/fs/atomic-write.ts: never half a file, even when the
 * process is killed). An existing file keeps its mode; a symbolic link is replaced by the file.
 */
export function saveTranscript(file: string, messages: readonly ChatMessage[]): void {
  try {
    writeFileAtomic(file, lines(messages));
  } catch (error) {
    throw new CliError(`cannot write ${file}: ${reason(error)}`);
  }
}
