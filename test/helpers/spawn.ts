// Runs the built CLI (bin/aip.js → dist/) as a real process, for what only a process boundary shows:
// start-up, signals, exit statuses, file modes, detached children. The environment is minimal and
// never the developer's.

import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { patience } from './patience.js';

/**
 * The run's own build (test/global-setup.ts), or this checkout's when a file runs outside vitest's
 * global set-up.
 */
export const BUILD_ROOT = process.env.AIP_TEST_BUILD ?? fileURLToPath(new URL('../..', import.meta.url));
export const BIN = join(BUILD_ROOT, 'bin', 'aip.js');

export interface Spawned {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/**
 * PATH, a HOME that is not the developer's, no keychain, and the run's TMPDIR, AIP_TEST_RUN and AIP_DATA_DIR (test/global-setup.ts:
 * what the process leaves in the temporary directory, or leaves running, is then seen), under `extra`.
 */
export function aipEnv(extra: Record<string, string> = {}): Record<string, string> {
  const run: Record<string, string> = {};
  // AIP_DATA_DIR: the run's (test/global-setup.ts), so that a process's history is never kept in a
  // HOME of the machine's, nor warned about where HOME is /nonexistent.
  for (const key of ['TMPDIR', 'AIP_TEST_RUN', 'AIP_DATA_DIR'] as const) {
    const value = process.env[key];
    if (value !== undefined) run[key] = value;
  }
  // AIP_KEYRING=off: never the keychain of the machine the tests run on (see test/helpers/cli.ts).
  return {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: extra.HOME ?? '/nonexistent',
    AIP_KEYRING: 'off',
    ...run,
    ...extra,
  };
}

/**
 * What a child writes, and how it ends. `timeoutMs`: a child still running then is killed, so that a
 * run that hangs fails its test rather than the whole file by its timeout.
 */
export function collect(child: ChildProcess, timeoutMs?: number): Promise<Spawned> {
  return new Promise((resolve, reject) => {
    let stdout = '';
    let stderr = '';
    child.stdout?.on('data', (d) => {
      stdout += d;
    });
    child.stderr?.on('data', (d) => {
      stderr += d;
    });
    const killer = timeoutMs === undefined ? undefined : setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(killer);
      resolve({ code, signal, stdout, stderr });
    });
  });
}

/**
 * Another user cannot write the run's data directory (root's, 0700): their processes keep no history,
 * as they would keep theirs in their own home, which the tests do not make.
 */
export const AS_ANOTHER_USER = { AIP_HISTORY: 'off' };

/** Runs aip to its end; `user` runs it as another user (root's tests of what a user is refused). */
export function runAip(
  args: string[],
  options: {
    env?: Record<string, string>;
    stdin?: string;
    user?: { uid: number; gid: number };
    /** Killed after this long: a run that hangs then fails its test (code null) instead of the file. */
    timeoutMs?: number;
  } = {},
): Promise<Spawned> {
  const child = spawn(process.execPath, [BIN, ...args], {
    env: aipEnv({ ...(options.user ? AS_ANOTHER_USER : {}), ...options.env }),
    stdio: 'pipe',
    ...options.user,
  });
  // Never outlives its test: a run that hangs is killed, on a busy machine too (patience.ts).
  const done = collect(child, options.timeoutMs ?? patience(120_000));
  child.stdin.end(options.stdin ?? '');
  return done;
}

/** Starts a long-running aip process and resolves once its stderr matches `ready` (killed if it never does). */
export function startAip(
  args: string[],
  env: Record<string, string>,
  ready: RegExp,
): Promise<{ child: ChildProcess; match: RegExpMatchArray; stderr: () => string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      env: aipEnv(env),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`not ready: ${stderr}`));
    }, patience(60_000));
    child.stderr.on('data', (d) => {
      stderr += d;
      const match = stderr.match(ready);
      if (match) {
        clearTimeout(timer);
        resolve({ child, match, stderr: () => stderr });
      }
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`exited ${code}: ${stderr}`));
    });
  });
}
