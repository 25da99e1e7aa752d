// The `args` input as the words of a command line, split as a POSIX shell splits them and nothing
// more: '…' and "…" quoting, backslash escapes, $'…' strings, "" as an empty word, a quoted line break
// kept inside its word. Nothing is expanded or substituted ($HOME, $(…), `…`, globs, ~ stay as
// written) and no character is an operator (| ; & > # are letters), so no value in args can run as
// shell code: aip is started with the words, never through a shell. The splitter is shlex, a port of
// Python's shlex.split in POSIX mode, rather than xargs, which the composite action used: xargs takes
// no \" escape, refuses a quoted line break and drops a trailing "".

import { split } from 'shlex';

export class ArgsError extends Error {}

export function splitArgs(text: string): string[] {
  try {
    return split(text);
  } catch (error) {
    // A backslash that ends the text escapes nothing: bash keeps it as a backslash, shlex refuses it.
    if (/escape/i.test((error as Error).message)) return splitKeepingLastBackslash(text);
    // shlex says "Got EOF while in a quoted string" and the like: the quote left open is the cause.
    // The text itself is not repeated: a key pasted into args would be printed with it.
    throw new ArgsError(`args: ${describe((error as Error).message)}`);
  }
}

function splitKeepingLastBackslash(text: string): string[] {
  try {
    return split(`${text}\\`);
  } catch (error) {
    throw new ArgsError(`args: ${describe((error as Error).message)}`);
  }
}

function describe(message: string): string {
  if (/quoted string/i.test(message))
    return 'a quote is not closed (write an apostrophe as \\\' or inside "…")';
  return message;
}
