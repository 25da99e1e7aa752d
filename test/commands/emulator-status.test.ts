// `aip emulator status` finds any emulator on its port (issue 28): one started in the foreground, one
// that takes keys of its own (it says it is an emulator, and its pid, even when it refuses the key),
// and one behind a record left by a detached emulator that is gone.

import type { ChildProcess } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { patience } from '../helpers/patience.js';
import { freePort } from '../helpers/ports.js';
import { runAip, startAip } from '../helpers/spawn.js';
import { tempDir } from '../helpers/temp.js';

const children: ChildProcess[] = [];
afterEach(async () => {
  await Promise.all(
    children.splice(0).map(
      (child) =>
        new Promise<void>((resolve) => {
          if (child.exitCode !== null || child.signalCode !== null) return resolve();
          child.once('exit', () => resolve());
          child.kill('SIGKILL');
        }),
    ),
  );
});

async function foreground(config: string, port: number, extra: string[] = []): Promise<ChildProcess> {
  const { child } = await startAip(
    ['emulator', '--port', String(port), '--ephemeral', ...extra],
    { AIP_CONFIG_DIR: config },
    /listening on http/,
  );
  children.push(child);
  return child;
}

describe('aip emulator status', { timeout: patience(60_000) }, () => {
  it('finds an emulator started in the foreground, on the port given', async () => {
    const config = tempDir('aip-test-status-');
    const port = await freePort();
    const child = await foreground(config, port);
    const r = await runAip(['emulator', 'status', '--port', String(port), '--json'], {
      env: { AIP_CONFIG_DIR: config },
    });
    expect([r.code, r.stderr]).toEqual([0, '']);
    expect(JSON.parse(r.stdout)).toMatchObject({
      running: true,
      url: `http://127.0.0.1:${port}`,
      pid: child.pid,
      detached: false,
    });
    const table = await runAip(['emulator', 'status', '--port', String(port)], {
      env: { AIP_CONFIG_DIR: config },
    });
    expect(table.stdout).toMatch(new RegExp(`pid\\s+${child.pid} \\(foreground\\)`));
  });

  it('finds one that takes keys of its own, by its pid', async () => {
    const config = tempDir('aip-test-status-');
    const port = await freePort();
    const child = await foreground(config, port, ['--api-key', 'a-key-of-its-own']);
    const r = await runAip(['emulator', 'status', '--port', String(port), '--json'], {
      env: { AIP_CONFIG_DIR: config },
    });
    expect([r.code, r.stderr]).toEqual([0, '']);
    expect(JSON.parse(r.stdout)).toMatchObject({ running: true, pid: child.pid, detached: false });
  });

  it('finds it behind the record of a detached emulator that is gone', async () => {
    const config = tempDir('aip-test-status-');
    mkdirSync(config, { recursive: true });
    const port = await freePort();
    // A detached emulator recorded on this port, gone since; another now runs there in the foreground.
    writeFileSync(
      join(config, 'emulator.json'),
      JSON.stringify({
        pid: 999_999,
        port,
        origin: `http://127.0.0.1:${port}`,
        log_file: join(config, 'emulator.log'),
        started_at: new Date().toISOString(),
        control_key: 'aip-emulator-control-gone',
      }),
    );
    const child = await foreground(config, port);
    const r = await runAip(['emulator', 'status', '--json'], { env: { AIP_CONFIG_DIR: config } });
    expect([r.code, r.stderr]).toEqual([0, '']);
    expect(JSON.parse(r.stdout)).toMatchObject({ running: true, pid: child.pid, detached: false });
  });

  it('says where it looked when none runs there', async () => {
    const config = tempDir('aip-test-status-');
    const port = await freePort();
    const r = await runAip(['emulator', 'status', '--port', String(port)], {
      env: { AIP_CONFIG_DIR: config },
    });
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      `error: no emulator is running on http://127.0.0.1:${port}: start one with aip emulator --detach\n`,
    );
  });
});
