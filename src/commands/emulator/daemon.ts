// The record of a detached emulator: a small JSON file beside the config (pid, port, URL, log file),
// and a check that the process behind it is still the emulator that wrote it (pids get reused).

import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Context } from '../../context.js';
import { isProcessAlive, removeStaleTemps, writeFileAtomic } from '../../fs/atomic-write.js';
import { configDir } from '../../settings/config-file.js';

export interface DaemonState {
  pid: number;
  port: number;
  origin: string;
  log_file: string;
  started_at: string;
}

export function daemonFiles(ctx: Context): { state: string; log: string; dir: string } {
  const dir = configDir(ctx.env);
  return { dir, state: join(dir, 'emulator.json'), log: join(dir, 'emulator.log') };
}

export function readDaemonState(file: string): DaemonState | undefined {
  try {
    const parsed = JSON.parse(readFileSync(file, 'utf8')) as DaemonState;
    return typeof parsed.pid === 'number' && typeof parsed.origin === 'string' ? parsed : undefined;
  } catch {
    return undefined;
  }
}

/** Atomically (never a torn record, whatever kills this process), mode 0600. */
export function writeDaemonState(file: string, state: DaemonState): void {
  writeFileAtomic(file, `${JSON.stringify(state, null, 2)}\n`, { mode: 0o600, followSymlinks: true });
}

/** Removes the record, and any temporary file a writer of it left when it was killed. */
export function removeDaemonState(file: string): void {
  rmSync(file, { force: true });
  removeStaleTemps(file);
}

export interface EmulatorHealth {
  ok: boolean;
  pid: number;
  uptime_s: number;
  requests: number;
}

/** The emulator's own health answer, or undefined when nothing (or something else) answers. */
export async function probeEmulator(ctx: Context, origin: string): Promise<EmulatorHealth | undefined> {
  try {
    const res = await ctx.deps.transport({
      method: 'GET',
      url: `${origin}/_emulator/health`,
      headers: { accept: 'application/json' },
      signal: AbortSignal.timeout(2000),
    });
    if (res.status !== 200) return undefined;
    const body = JSON.parse(res.body.toString('utf8')) as EmulatorHealth;
    return body.ok === true && typeof body.pid === 'number' ? body : undefined;
  } catch {
    return undefined;
  }
}

export { isProcessAlive };
