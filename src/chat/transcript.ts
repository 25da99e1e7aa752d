// Transcripts: JSON Lines, one chat message per line ({"role": …, "content": …}), as /save writes
// them and --continue reads them back.

import {
  appendFileSync,
  closeSync,
  existsSync,
  fstatSync,
  openSync,
  readSync,
  renameSync,
  writeFileSync,
} from 'node:fs';
import type { Context } from '../context.js';
import { UsageError } from '../errors.js';
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

/** Writes the whole transcript (to a temporary file renamed over the old one: never half a file). */
export function saveTranscript(file: string, messages: readonly ChatMessage[]): void {
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, lines(messages));
  renameSync(temporary, file);
}

/** Does the file end in the middle of a line (written by hand, without the final newline)? */
function endsMidLine(file: string): boolean {
  if (!existsSync(file)) return false;
  const fd = openSync(file, 'r');
  try {
    const { size } = fstatSync(fd);
    if (size === 0) return false;
    const last = Buffer.alloc(1);
    readSync(fd, last, 0, 1, size - 1);
    return last[0] !== 0x0a;
  } finally {
    closeSync(fd);
  }
}

export function appendTranscript(file: string, messages: readonly ChatMessage[]): void {
  appendFileSync(file, (endsMidLine(file) ? '\n' : '') + lines(messages));
}
