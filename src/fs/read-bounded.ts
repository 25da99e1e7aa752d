// A file read whole, bounded: regular files only (not a FIFO or a device, which could block or never
// end; opened without blocking, so a FIFO is refused rather than waited on), its size checked on the
// open file (a file that grows meanwhile cannot get past it), a UsageError (exit 2) naming it otherwise.

import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import { UsageError } from '../errors/errors.js';

const MIB = 1024 * 1024;

const sizeText = (bytes: number) =>
  bytes >= MIB ? `${(bytes / MIB).toFixed(1).replace(/\.0$/, '')} MiB` : `${bytes} bytes`;

function describe(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ENOENT') return 'no such file';
  if (code === 'EACCES' || code === 'EPERM') return 'permission denied';
  if (code === 'EISDIR') return 'a directory, not a file';
  return code ?? (error as Error).message;
}

/** The file's bytes; a UsageError naming the file when it cannot be read, is not a file or is too big. */
export function readBounded(file: string, max: number, what = file): Buffer {
  let fd: number;
  try {
    // Non-blocking: opening a FIFO to read would wait for a writer; it is refused once open.
    fd = openSync(file, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  } catch (error) {
    throw new UsageError(`${what}: cannot read it (${describe(error)})`);
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) throw new UsageError(`${what}: not a regular file`);
    if (stat.size > max)
      throw new UsageError(
        `${what}: ${sizeText(stat.size)}, more than the ${sizeText(max)} read from such a file`,
      );
    const buffer = Buffer.alloc(stat.size);
    let at = 0;
    while (at < buffer.length) {
      const n = readSync(fd, buffer, at, buffer.length - at, at);
      if (n === 0) break;
      at += n;
    }
    return buffer.subarray(0, at);
  } catch (error) {
    if (error instanceof UsageError) throw error;
    throw new UsageError(`${what}: cannot read it (${describe(error)})`);
  } finally {
    closeSync(fd);
  }
}
