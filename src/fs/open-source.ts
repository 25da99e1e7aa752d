// Opening what a command reads documents from: a file path, or "-" for stdin. The file is checked to be
// readable before anything is read, so that a wrong path is a usage error in words, not a stream error
// halfway through a check. Shared by every reader of a file of documents (validate, chat transcripts,
// rollout tasks, traces send), whichever noun it belongs to.

import { createReadStream, type Stats, statSync } from 'node:fs';
import { UsageError } from '../errors/errors.js';
import type { IO } from '../output/io.js';

export interface Source {
  /** As shown in messages: the path, or "stdin". */
  name: string;
  stream: AsyncIterable<Buffer | string>;
  /** The line-size limit (AIP_MAX_LINE_BYTES; DEFAULT_LINE_BYTES when not given). */
  maxLineBytes?: number;
  /**
   * For a regular file: its path and identity, for a reader that reads it at positions of its own
   * (traces send) instead of through `stream`; it checks that the path still names this file.
   */
  file?: { path: string; stat: Pick<Stats, 'dev' | 'ino'> };
}

/**
 * A file path or "-" (stdin), checked to be readable before anything is read; `maxLineBytes` is the
 * line-size limit in effect (lineLimitFrom(ctx.env)).
 */
export function openSource(path: string, io: IO, maxLineBytes?: number): Source {
  if (path === '-') return { name: 'stdin', stream: io.stdin as AsyncIterable<Buffer>, maxLineBytes };
  let stat: Stats;
  try {
    stat = statSync(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new UsageError(`cannot read ${path}: ${code === 'ENOENT' ? 'no such file' : code}`);
  }
  if (!stat.isFile()) throw new UsageError(`cannot read ${path}: not a file`);
  return {
    name: path,
    stream: createReadStream(path, { highWaterMark: 1 << 20 }),
    maxLineBytes,
    file: { path, stat },
  };
}
