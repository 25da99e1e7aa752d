// How a file that cannot be written is told, whichever command writes it: one line naming the file,
// what the system said in words and its code, and what to do (`cannot write notes.jsonl: no space
// left on the device (ENOSPC); free some space and try again`). Never a stack trace.
//
// The exit code is the caller's, by one rule: when the failure leaves nothing done (aip stops before
// it sends, creates or starts anything, or undoes what it started), it is a UsageError, 2, as an
// unusable setting is: fix the disk or the permissions and run the same command again. When
// something was done that a run again would repeat (a chat reply received but not saved), it is an
// error, 1. A file that only remembers what was done (the local records of models and jobs) is a warning
// under the command's own result.

import { constants } from 'node:os';
import { dirname } from 'node:path';
import { CliError, UsageError } from '../errors/errors.js';

const REASONS: Record<string, string> = {
  ENOSPC: 'no space left on the device',
  EDQUOT: 'disk quota exceeded',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  EROFS: 'read-only file system',
  ENOENT: 'its directory does not exist',
  ENOTDIR: 'a part of its path is not a directory',
  EISDIR: 'it is a directory',
  ELOOP: 'too many levels of symbolic links',
  EIO: 'input/output error',
  EFBIG: 'file too large',
  ENAMETOOLONG: 'file name too long',
  EMFILE: 'too many open files',
  ENFILE: 'too many open files',
  EBUSY: 'the file is busy',
  ETXTBSY: 'the file is busy',
  EEXIST: 'a file is in the way',
  EXDEV: 'it is on another file system',
};

/** The names of the system's error numbers: Node's libuv (1.46) has no name for some (EDQUOT). */
const ERRNO_NAMES = new Map(Object.entries(constants.errno).map(([name, n]) => [n, name]));

/**
 * The error's code, as the system names it. Node names an error libuv has no name for "UNKNOWN" or
 * "Unknown system error -122" (a quota exceeded, on Linux, among them): named here by its number.
 */
export function fsErrorCode(error: unknown): string | undefined {
  const { code, errno } = (error ?? {}) as NodeJS.ErrnoException;
  if (typeof code === 'string' && /^E[A-Z0-9]+$/.test(code)) return code;
  if (typeof errno === 'number' && errno < 0) return ERRNO_NAMES.get(-errno) ?? code;
  return code;
}

/** An error of the file system (Node's fs errors carry a code and an errno). */
export function isFsError(error: unknown): error is NodeJS.ErrnoException & { code: string } {
  const code = fsErrorCode(error);
  return error instanceof Error && typeof code === 'string' && /^E[A-Z0-9]+$/.test(code);
}

/** "no space left on the device (ENOSPC)"; a code without words is given with Node's own. */
export function describeFsError(error: NodeJS.ErrnoException & { code: string }): string {
  const code = fsErrorCode(error)!;
  const detail = (error as { detail?: string }).detail;
  if (detail) return `${detail} (${code})`;
  const words = REASONS[code];
  if (words) return `${words} (${code})`;
  const node = error.message.replace(/^[^:]+: /, '').split(',')[0];
  return node && node !== code ? `${node} (${code})` : code;
}

/** What to do about it, for the codes that have an answer. */
function advice(code: string, file: string): string | undefined {
  switch (code) {
    case 'ENOSPC':
      return 'free some space and try again';
    case 'EDQUOT':
      return 'free some space (or have the quota raised) and try again';
    case 'EACCES':
    case 'EPERM':
      // A rewrite makes a new file beside the old one: the directory is what must be writable.
      return `check the permissions of the file and of ${dirname(file)} (the new file is made there, then renamed over the old one)`;
    case 'EROFS':
      return 'write it elsewhere, or remount the file system read-write';
    default:
      return undefined;
  }
}

export interface WriteErrorOptions {
  /** What the failure means for the command: "nothing was sent", "the reply above was not saved". */
  outcome?: string;
  /** Replaces the advice (a directory to set, say: TMPDIR, AIP_CONFIG_DIR). */
  advice?: string;
  /** 'usage' (2): nothing was done. 'error' (1): something was, and is not undone. Default 'usage'. */
  exit?: 'usage' | 'error';
}

/**
 * The one-line message for `file`, as a CliError carrying the exit code its case has; anything but an
 * error of the file system (a CliError already, a bug) is returned as it is.
 */
export function writeError(file: string, error: unknown, options: WriteErrorOptions = {}): unknown {
  if (!isFsError(error)) return error;
  // An error that says itself what it is (a link not followed) needs no advice of the code's.
  const own = (error as { detail?: string }).detail ? undefined : advice(fsErrorCode(error)!, file);
  const hint = [options.advice ?? own, options.outcome].filter(Boolean).join('; ');
  const Kind = options.exit === 'error' ? CliError : UsageError;
  return new Kind(`cannot write ${file}: ${describeFsError(error)}`, {
    hint: hint || undefined,
    cause: error,
  });
}
