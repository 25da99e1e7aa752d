// Temporary directories for tests: made under the OS temporary directory (during a run, the run's own
// directory: test/global-setup.ts), and removed when the test file that made them has finished (an
// afterAll of test/cleanup.ts, a setup file vitest runs in every test file; so the list of what was
// made is this module's, emptied after each file). A test never removes them itself.

import { chmodSync, lstatSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const made: string[] = [];

/** A new empty directory, removed after this test file. */
export function tempDir(prefix = 'aip-test-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  made.push(dir);
  return dir;
}

/** Removes every directory tempDir() made in this test file (the newest first). */
export function removeTempDirs(): void {
  const failed: string[] = [];
  for (const dir of made.splice(0).reverse()) {
    try {
      removeTree(dir);
    } catch (error) {
      failed.push(`${dir}: ${(error as Error).message}`);
    }
  }
  if (failed.length > 0) throw new Error(`temporary directories not removed:\n${failed.join('\n')}`);
}

/**
 * rm -rf, also through directories a test made unreadable or unwritable (a non-root user cannot
 * remove what is in a 0500 directory): those are given their owner's rights back, then removed.
 */
export function removeTree(path: string): void {
  try {
    rmSync(path, { recursive: true, force: true, maxRetries: 3 });
    return;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'EACCES' && code !== 'EPERM') throw error;
  }
  const grant = (p: string) => {
    let stat: ReturnType<typeof lstatSync>;
    try {
      stat = lstatSync(p);
    } catch {
      return;
    }
    if (!stat.isDirectory()) return;
    try {
      chmodSync(p, 0o700);
    } catch {
      // not ours: rmSync below says so
    }
    for (const name of readdirSync(p)) grant(join(p, name));
  };
  grant(path);
  rmSync(path, { recursive: true, force: true, maxRetries: 3 });
}

/**
 * What aip left in a directory it was given as TMPDIR: its entries, but Node's compile cache, which
 * aip turns on (bin/aip.js, Node 22+) and Node keeps under the temporary directory between runs.
 */
export function leftInTemp(dir: string): string[] {
  return readdirSync(dir).filter((name) => name !== 'node-compile-cache');
}
