// `aip emulator stop` where its record cannot be removed (a read-only file system): the emulator is
// stopped all the same, and the record named in a warning, never an "unexpected failure".

import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runAip } from '../helpers/spawn.js';

// The config directory is bound onto itself and that binding made read-only once the emulator runs:
// its open log stays writable (it was opened before), the record cannot be removed through the path.
const dir = mkdtempSync(join(tmpdir(), 'aip-test-stop-'));
let mountable = false;
let why = '';
try {
  execFileSync('mount', ['--bind', dir, dir], { stdio: 'pipe' });
  execFileSync('umount', [dir], { stdio: 'pipe' });
  mountable = true;
} catch (error) {
  why = (error as Error).message.split('\n')[0] ?? 'mount failed';
}
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('emulator stop on a read-only file system', () => {
  const title = 'stops the emulator, warns about the record it cannot remove, exit 0';
  it.skipIf(!mountable)(mountable ? title : `${title} (skipped: ${why})`, async () => {
    const env = { AIP_CONFIG_DIR: dir };
    const started = await runAip(['emulator', '--port', '0', '--detach', '--ephemeral', '--json'], { env });
    expect(started.code).toBe(0);
    const { pid } = JSON.parse(started.stdout) as { pid: number };
    let bound = false;
    try {
      execFileSync('mount', ['--bind', dir, dir], { stdio: 'pipe' });
      bound = true;
      execFileSync('mount', ['-o', 'remount,bind,ro', dir], { stdio: 'pipe' });
      const stopped = await runAip(['emulator', 'stop'], { env });
      expect(stopped.code).toBe(0);
      expect(stopped.stderr).toMatch(
        new RegExp(
          `^warning: cannot remove ${join(dir, 'emulator.json')}: read-only file system \\(EROFS\\); it is stale, and can be deleted\\nStopped the emulator at http://127\\.0\\.0\\.1:\\d+ \\(pid ${pid}\\)\\n$`,
        ),
      );
      expect(() => process.kill(pid, 0)).toThrow();
    } finally {
      if (bound) execFileSync('umount', [dir], { stdio: 'pipe' });
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // stopped, as it should be
      }
    }
  });
});
