// Runs the built CLI (bin/aip.js → dist/) as a real process, for what only a process boundary shows:
// start-up, signals, exit statuses, file modes, detached children. The environment is minimal and
// never the developer's.

import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const BIN = fileURLToPath(new URL('../../bin/aip.js', import.meta.url));

export interface Spawned {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/**
 * PATH, a HOME that is not the developer's, and the run's TMPDIR and AIP_TEST_RUN (test/global-setup.ts:
 * what the process leaves in the temporary directory, or leaves running, is then seen), under `extra`.
 */
export function aipEnv(extra: Record<string, string> = {}): Record<string, string> {
  const run: Record<string, string> = {};
  for (const key of ['TMPDIR', 'AIP_TEST_RUN'] as const) {
    const value = process.env[key];
    if (value !== undefined) run[key] = value;
  }
  return { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: extra.HOME ?? '/nonexistent', ...run, ...extra };
}

/** Runs aip to its end; `user` runs it as another user (root's tests of what a user is refused). */
export function runAip(
  args: string[],
  options: { env?: Record<string, string>; stdin?: string; user?: { uid: number; gid: number } } = {},
): Promise<Spawned> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      env: aipEnv(options.env),
      stdio: 'pipe',
      ...options.user,
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => {
      stdout += d;
    });
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
    child.stdin.end(options.stdin ?? '');
  });
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
    }, 10_000);
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
