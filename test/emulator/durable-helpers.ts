// What the durable emulator's tests share (durable.test.ts, durable-drivers.test.ts): the SQLite
// bindings this Node has, emulators in-process and as processes on a state directory, requests with
// the key. useDurable() registers the clean-up of what a file starts; importing this registers nothing.

import type { ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { afterEach } from 'vitest';
import { type RunningEmulator, startEmulator } from '../../src/emulator/index.js';
import { nodeSqliteBinding } from '../../src/lib/sqlite/node-driver.js';
import { startAip } from '../helpers/spawn.js';
import { tempDir } from '../helpers/temp.js';

export const KEY = 'aip-emulator-local-key';
export const MODEL = { project: 'p', name: 'm', base_model: 'OpenPipe/Qwen3-14B-Instruct' };
export const GROUPS = [
  { trajectories: [{ reward: 1, messages_and_choices: [{ role: 'user', content: 'hi' }] }] },
];

/** AIP_EMULATOR_SQLITE's values, and the name each binding goes by. */
export type Driver = 'node' | 'wasm';
export const DRIVER_NAMES: Record<Driver, string> = { node: 'node:sqlite', wasm: 'node-sqlite3-wasm' };
/** node:sqlite where this Node has it (22.13+, 24, 26), and the WebAssembly build everywhere. */
export const hasNodeSqlite = nodeSqliteBinding() !== undefined;
export const DRIVERS: Driver[] = hasNodeSqlite ? ['node', 'wasm'] : ['wasm'];

export async function call(
  origin: string,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
) {
  const res = await fetch(`${origin}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${KEY}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...headers,
    },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
  // biome-ignore lint/suspicious/noExplicitAny: answers of several shapes, read field by field by the tests
  return { status: res.status, body: (await res.json()) as any };
}

export function kill9(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGKILL');
  });
}

/**
 * A test file's durable emulators: state directories under one temporary directory (removed after
 * the file), and the emulators and processes it started, stopped after each test.
 */
export function useDurable() {
  const root = tempDir('aip-test-durable-');
  let dirs = 0;
  const running: RunningEmulator[] = [];
  const children: ChildProcess[] = [];
  afterEach(async () => {
    await Promise.all(running.splice(0).map((emu) => emu.close()));
    await Promise.all(children.splice(0).map(kill9));
  });

  return {
    root,
    stateDir: () => join(root, `state-${++dirs}`),

    async start(dir: string | undefined, options: { seed?: number; port?: number; sqlite?: string } = {}) {
      const emu = await startEmulator({ stateDir: dir, stepMs: 5, apiKeys: [KEY], ...options });
      running.push(emu);
      return emu;
    },

    async stop(emu: RunningEmulator): Promise<void> {
      running.splice(running.indexOf(emu), 1);
      await emu.close();
    },

    /** `aip emulator` as a process on a given port and state directory, until it listens. */
    async emulatorProcess(
      dir: string,
      port: number,
      driver: Driver | undefined,
      extra: string[] = [],
    ): Promise<{ child: ChildProcess; stderr: () => string }> {
      const { child, stderr } = await startAip(
        ['emulator', '--port', String(port), '--state-dir', dir, '--step-ms', '40', ...extra],
        { AIP_CONFIG_DIR: join(root, 'config'), ...(driver ? { AIP_EMULATOR_SQLITE: driver } : {}) },
        /listening on http[\s\S]*state {10}.*\n/,
      );
      children.push(child);
      return { child, stderr };
    },
  };
}
