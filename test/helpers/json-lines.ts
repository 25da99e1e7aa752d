// A JSON Lines file read back whole (a groups file, a spool): one parsed value a line, blank lines
// skipped. For tests that look at what a command wrote; the type is the caller's to claim.

import { readFileSync } from 'node:fs';

export function readJsonLines<T>(file: string): T[] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as T);
}
