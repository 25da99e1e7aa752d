// One write that is all written: writeSync may write less than it is given (a signal, a pipe); the
// rest is written after it. A module of its own, so that the history journal, which every command that
// talks to the platform loads, does not load the atomic-write machinery with it.

import { writeSync } from 'node:fs';

export function writeAll(fd: number, data: string | Uint8Array): void {
  const bytes = typeof data === 'string' ? Buffer.from(data) : data;
  for (let at = 0; at < bytes.length; ) at += writeSync(fd, bytes, at, bytes.length - at);
}
