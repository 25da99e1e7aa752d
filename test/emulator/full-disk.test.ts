// A full disk (issue 28): the emulator's state directory on a small tmpfs, filled. A write is answered
// 507 with a body naming the cause (in each API's error shape), logged once, not a stack trace per
// request; reads are served from what is there, and nothing is served that was not kept; once space is
// freed, writes go through again. Needs root to mount a tmpfs: skipped, saying why, where it cannot.

import { spawnSync } from 'node:child_process';
import { closeSync, mkdirSync, openSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { type RunningEmulator, startEmulator } from '../../src/emulator/index.js';
import { patience } from '../helpers/patience.js';
import { tempDir } from '../helpers/temp.js';
import { call, DRIVERS, KEY, MODEL } from './durable-helpers.js';

const mounts: string[] = [];

/** A tmpfs of `size` at a new directory, or why there can be none here. */
function smallDisk(size: string): string | { cannot: string } {
  if (process.platform !== 'linux') return { cannot: 'tmpfs mounts are a Linux test' };
  if (process.getuid?.() !== 0) return { cannot: 'mounting a tmpfs needs root' };
  const dir = join(tempDir('aip-test-full-disk-'), 'disk');
  mkdirSync(dir);
  const mounted = spawnSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', dir], {
    encoding: 'utf8',
  });
  if (mounted.status !== 0)
    return { cannot: `mount -t tmpfs is not permitted here: ${mounted.stderr.trim()}` };
  mounts.push(dir);
  return dir;
}

afterAll(() => {
  for (const dir of mounts.splice(0)) spawnSync('umount', [dir]);
});

/** Writes to `file` until the file system has no room left; returns how many bytes went in. */
function fill(file: string): number {
  const fd = openSync(file, 'w');
  const chunk = Buffer.alloc(64 * 1024, 1);
  let written = 0;
  try {
    for (;;) {
      try {
        written += writeSync(fd, chunk);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
        // The last blocks, a byte at a time.
        for (;;) {
          try {
            written += writeSync(fd, chunk.subarray(0, 1));
          } catch {
            return written;
          }
        }
      }
    }
  } finally {
    closeSync(fd);
  }
}

const probe = smallDisk('4m');
const skip = typeof probe === 'string' ? false : probe.cannot;
if (skip) console.log(`full-disk tests skipped: ${skip}`);

describe.skipIf(Boolean(skip)).each(DRIVERS)('a full disk, on %s', (driver) => {
  it('a write is a 507 naming the cause, logged once; reads are served; space freed, writes go on', {
    timeout: patience(60_000),
  }, async () => {
    const disk = smallDisk('4m') as string;
    const lines: string[] = [];
    let emu: RunningEmulator | undefined;
    try {
      emu = await startEmulator({
        stateDir: join(disk, 'state'),
        sqlite: driver,
        apiKeys: [KEY],
        stepMs: 5,
        log: (line) => lines.push(line),
      });
      const { origin } = emu;
      const kept = await call(origin, 'POST', '/training/v1/preview/models', MODEL);
      expect(kept.status).toBe(200);

      fill(join(disk, 'filler'));
      const before = lines.length;

      // Writes: a 507 each, in the API's error shape, naming the cause.
      for (const name of ['a', 'b', 'c']) {
        const r = await call(origin, 'POST', '/training/v1/preview/models', { ...MODEL, name });
        expect(r.status).toBe(507);
        expect(r.body.detail).toMatch(
          /^the emulator's state could not be written: no space left on the device that holds .*emulator\.db .*; free some space$/,
        );
      }
      const job = await call(origin, 'POST', '/training/v1/preview/training-jobs', {
        model_id: kept.body.id,
        trajectory_groups: [
          { trajectories: [{ reward: 1, messages_and_choices: [{ role: 'user', content: 'hi' }] }] },
        ],
      });
      expect(job.status).toBe(507);

      // Reads: what was kept, and nothing that was refused.
      const models = await call(origin, 'GET', '/_emulator/state');
      expect(models.status).toBe(200);
      expect(models.body.models.map((m: { name: string }) => m.name)).toEqual(['m']);
      expect(models.body.jobs).toEqual([]);
      const model = await call(origin, 'GET', `/training/v1/preview/models/${kept.body.id}/checkpoints`);
      expect(model.status).toBe(200);
      const health = await call(origin, 'GET', '/training/v1/health');
      expect(health.status).toBe(200);

      // Logged once, one line, no stack trace.
      const logged = lines.slice(before).filter((line) => !/^\d{3} (GET|POST) /.test(line));
      expect(logged).toHaveLength(1);
      expect(logged[0]).toMatch(
        /no space left on the device .*; until then writes are answered 507 and reads are served$/,
      );
      expect(lines.join('\n')).not.toMatch(/\n\s+at /);

      // Space again: writes go through.
      rmSync(join(disk, 'filler'));
      const again = await call(origin, 'POST', '/training/v1/preview/models', { ...MODEL, name: 'd' });
      expect(again.status).toBe(200);
    } finally {
      await emu?.close();
    }
    // And what was kept is there after a restart.
    const reopened = await startEmulator({ stateDir: join(disk, 'state'), sqlite: driver, apiKeys: [KEY] });
    try {
      const state = await call(reopened.origin, 'GET', '/_emulator/state');
      expect(state.body.models.map((m: { name: string }) => m.name).sort()).toEqual(['d', 'm']);
    } finally {
      await reopened.close();
    }
  });
});
