// The record of a detached emulator: a small JSON file beside the config (pid, port, URL, log file,
// the key of its control routes), and a check that the process behind it is still the emulator that
// wrote it (pids get reused).
//
// The control routes need a key. A detached emulator gets one of its own at start (random, through
// the environment, never argv), which opens its control routes only and dies with it; the record
// (0600) keeps it for `status` and `stop`. So no key of the user's (the --api-key ones, a profile's)
// is ever written to the record, and none is sent to whatever answers on a port. Without a record,
// `status` tries the emulator's default key, which is no secret.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Context } from '../../context.js';
import { isProcessAlive, removeStaleTemps, writeFileAtomic } from '../../fs/atomic-write.js';
import { removeFile } from '../../fs/remove-file.js';
import { rememberSecret } from '../../output/secrets.js';
import { configDir } from '../../settings/config-file.js';
import { EMULATOR_DEFAULT_KEY } from '../../settings/local-platform.js';

export interface DaemonState {
  pid: number;
  port: number;
  origin: string;
  log_file: string;
  started_at: string;
  /** Opens this emulator's control routes (/_emulator/…) only; absent in records of older versions. */
  control_key?: string;
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
  removeFile(file);
  removeStaleTemps(file);
}

export interface EmulatorHealth {
  ok: boolean;
  pid: number;
  uptime_s: number;
  requests: number;
  /** Where it keeps its state; null in memory only (absent from emulators of older aip). */
  state_dir?: string | null;
  store?: string | null;
  counts?: Record<string, number>;
}

/**
 * What answers at an origin: the emulator (with its health), something that refuses the key (an
 * emulator says its pid even then), nothing.
 */
export type Probe = { health: EmulatorHealth } | { refused: true; pid?: number } | undefined;

/** The header an emulator's refusal of a control request carries (src/emulator/steps/authenticate.ts). */
const EMULATOR_PID_HEADER = 'x-aip-emulator-pid';

/** The key that opens the control routes of the emulator a record names (or of one started with defaults). */
export function controlKeyOf(state: DaemonState | undefined): string {
  return state?.control_key ?? EMULATOR_DEFAULT_KEY;
}

/** The emulator's own health answer, or undefined when nothing (or something else) answers. */
export async function probeEmulator(ctx: Context, origin: string, key: string): Promise<Probe> {
  // Masked wherever this process prints (--debug); the default key is no secret.
  if (key !== EMULATOR_DEFAULT_KEY) rememberSecret(key);
  try {
    const res = await ctx.deps.transport({
      method: 'GET',
      url: `${origin}/_emulator/health`,
      headers: { accept: 'application/json', authorization: `Bearer ${key}` },
      signal: AbortSignal.timeout(2000),
    });
    if (res.status === 401) {
      const pid = Number(res.headers[EMULATOR_PID_HEADER]);
      return Number.isSafeInteger(pid) && pid > 0 ? { refused: true, pid } : { refused: true };
    }
    if (res.status !== 200) return undefined;
    const body = JSON.parse(res.body.toString('utf8')) as EmulatorHealth;
    return body.ok === true && typeof body.pid === 'number' ? { health: body } : undefined;
  } catch {
    return undefined;
  }
}

/** The health of the emulator that answered, if one did. */
export function healthOf(probe: Probe): EmulatorHealth | undefined {
  return probe && 'health' in probe ? probe.health : undefined;
}

export { isProcessAlive };
