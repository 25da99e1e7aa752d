// The API key in the OS secret store (the Secret Service on Linux: gnome-keyring, KWallet; the macOS
// Keychain; the Windows Credential Manager) through @napi-rs/keyring, an optional dependency with
// prebuilt binaries (no compiler at install). Where there is none (headless CI, a container, the
// binding not installed or failing to load, AIP_KEYRING=off), the key stays in the config file, mode
// 0600, as before: openKeychain then says why, in a string.
//
// Loaded only by code that needs the key (never at start-up: `aip --help` does not load it), and only
// when a store can be there: on Linux without a D-Bus session address the binding is not even loaded,
// since nothing could answer (it would fail in ~3 ms anyway: libdbus has no X11 autolaunch).
//
// Every call is asked with a deadline (3 s, AIP_KEYRING_TIMEOUT to change it), past which the key is
// taken from the file as if there were no keychain, with one warning that says why. The binding's calls
// are synchronous native code, which nothing in this process can stop: a Secret Service that accepts a
// D-Bus connection and never answers blocks libdbus for good (measured: a socket that accepts and stays
// silent hangs the Entry's constructor without end; a stopped gnome-keyring fails each call after the
// binding's 2 s reply timeout). A worker thread would not help: one blocked in native code keeps the
// process from ever exiting. So each call runs in a short-lived child process (node -e, about 50 ms on
// an idle machine), which a watchdog thread of its own kills at the deadline, counted from when the
// child is running, so that a busy machine's slow start-up is not taken for a silent keychain; the
// spawnSync that waits for it has a generous bound of its own on top. A call that times out, or that
// cannot open the store at all (no bus at that address, no Secret Service on it, the binding not
// loading), makes the keychain unreachable for the rest of the command: the calls after it fail at once
// with the same reason, so a command waits for a silent keychain once, and says so once.
//
// The calls are synchronous: Settings.apiKey() is, and everything that sends the key resolves it
// through that. The child is given the Settings' environment (its D-Bus address), not this process's.

import type * as ChildProcess from 'node:child_process';
import { createRequire } from 'node:module';
import { resolve } from 'node:path';
import { UsageError } from '../errors/errors.js';
import type { Env } from './global-options.js';

/** The one entry of a profile: `get` is undefined when there is none; every call may throw. */
export interface KeychainEntry {
  /** For people: "the system keychain (Secret Service)". */
  readonly label: string;
  get(): string | undefined;
  set(key: string): void;
  /** Whether there was an entry to remove. */
  remove(): boolean;
  /**
   * Once a call has timed out or could not open the store: why, for the rest of the command (every
   * later call throws a KeychainUnreachable with it, at once).
   */
  readonly unreachable: KeychainUnreachable | undefined;
}

/**
 * The keychain did not answer within the deadline, or could not be opened at all: nothing is known of
 * what it holds. The message names it and why ("the system keychain (Secret Service) did not answer
 * within 3 s").
 */
export class KeychainUnreachable extends Error {
  override name = 'KeychainUnreachable';
  constructor(
    message: string,
    /** Whether it was the deadline (each command paid it), not a failure that came at once. */
    readonly timedOut: boolean,
  ) {
    super(message);
  }
}

const SERVICE = 'aip';

/** The deadline of one keychain call, unless AIP_KEYRING_TIMEOUT says otherwise. */
export const DEFAULT_KEYCHAIN_TIMEOUT_SECONDS = 3;
/** On top of the deadline, for the child to start (a busy machine takes seconds), before it is killed. */
const STARTUP_ALLOWANCE_MS = 30_000;

/** What stands in a message for the store of this platform. */
function storeLabel(platform: NodeJS.Platform): string {
  if (platform === 'darwin') return 'the macOS Keychain';
  if (platform === 'win32') return 'the Windows Credential Manager';
  return 'the system keychain (Secret Service)';
}

/** Why no keychain can be used here, before loading anything; undefined when one may be. */
export function keychainAbsence(env: Env, platform: NodeJS.Platform = process.platform): string | undefined {
  if (env.AIP_KEYRING?.trim().toLowerCase() === 'off') return 'AIP_KEYRING=off';
  if (platform === 'darwin' || platform === 'win32') return undefined;
  if (platform !== 'linux' && platform !== 'freebsd') return `no keychain support on ${platform}`;
  // The Secret Service is reached over the session bus: no address, no bus (CI, ssh, containers).
  if (!env.DBUS_SESSION_BUS_ADDRESS?.trim()) return 'no D-Bus session (DBUS_SESSION_BUS_ADDRESS is unset)';
  return undefined;
}

/** AIP_KEYRING_TIMEOUT in seconds (3 by default; more than 0, at most 600); a usage error otherwise. */
export function keychainTimeoutMs(env: Env): number {
  const given = env.AIP_KEYRING_TIMEOUT?.trim();
  if (!given) return DEFAULT_KEYCHAIN_TIMEOUT_SECONDS * 1000;
  const seconds = Number(given);
  if (!/^\d+(\.\d+)?$/.test(given) || !(seconds > 0) || seconds > 600)
    throw new UsageError(
      `AIP_KEYRING_TIMEOUT must be a number of seconds, more than 0 and at most 600, not "${given}"`,
    );
  return Math.round(seconds * 1000);
}

/** How a deadline reads in a message: "3 s", "0.5 s". */
function seconds(ms: number): string {
  return `${Number((ms / 1000).toFixed(3))} s`;
}

/** node:child_process, required when the keychain is asked: `config list` and `--help` never load it. */
const requireBuiltin = createRequire(import.meta.url);

let bindingPath: string | undefined;

/** Where the binding is, or why it is not (not installed: an optional dependency). Not loaded here. */
function findBinding(): string | { absent: string } {
  if (bindingPath === undefined) {
    try {
      bindingPath = requireBuiltin.resolve('@napi-rs/keyring');
    } catch (error) {
      return { absent: `@napi-rs/keyring could not be loaded (${(error as Error).message.split('\n')[0]})` };
    }
  }
  return bindingPath;
}

/**
 * The child that makes one call (CommonJS, run with node -e): the request on stdin, the answer as one
 * JSON line on stdout. Its watchdog thread starts first and, at the deadline, writes that the call
 * timed out and kills the process, whatever the main thread is blocked in. `phase` tells a store that
 * could not be opened (or a binding that would not load) from a call the store refused.
 */
const CHILD = `'use strict';
const { readFileSync, writeSync } = require('node:fs');
const { Worker } = require('node:worker_threads');
const req = JSON.parse(readFileSync(0, 'utf8'));
const done = new Int32Array(new SharedArrayBuffer(4));
new Worker(
  "const { workerData: w } = require('node:worker_threads');" +
    "if (Atomics.wait(w.done, 0, 0, w.ms) === 'timed-out') {" +
    "require('node:fs').writeSync(1, '\\\\n{\\"timeout\\":true}\\\\n'); process.kill(process.pid, 'SIGKILL'); }",
  { eval: true, workerData: { done, ms: req.ms } },
);
let phase = 'load';
let answer;
try {
  const { Entry } = require(req.binding);
  phase = 'open';
  const entry = new Entry(req.service, req.account, { linux: { store: 'secret-service' } });
  phase = 'call';
  const value =
    req.op === 'get' ? entry.getPassword() : req.op === 'set' ? entry.setPassword(req.key) : entry.deletePassword();
  answer = { ok: true, value: value === undefined ? null : value };
} catch (error) {
  answer = { phase, error: String((error && error.message) || error) };
}
Atomics.store(done, 0, 1);
Atomics.notify(done, 0);
writeSync(1, '\\n' + JSON.stringify(answer) + '\\n');
`;

type Answer =
  | { ok: true; value: string | boolean | null }
  | { phase: 'load' | 'open' | 'call'; error: string }
  | { timeout: true };

/** The environment of the child: the Settings' own, but NODE_OPTIONS (a --require that prints, an --inspect port). */
function childEnv(env: Env): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(env))
    if (value !== undefined && name !== 'NODE_OPTIONS') out[name] = value;
  return out;
}

/** The last JSON line the child wrote, if any. */
function lastAnswer(stdout: string): Answer | undefined {
  const lines = stdout.split('\n').filter((line) => line.startsWith('{'));
  try {
    return lines.length > 0 ? (JSON.parse(lines.at(-1)!) as Answer) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The keychain entry of `profile` of the config file `configFile`, or why there is none (the key then
 * stays in the file, which is not an error).
 *
 * The account is the profile and the config file's absolute path, not the profile alone: two config
 * directories (AIP_CONFIG_DIR, as tests and CI use, or two checkouts' settings) each have their own
 * "default" profile, and must not read or overwrite each other's key.
 */
export function openKeychain(
  env: Env,
  configFile: string,
  profile: string,
  debug: (message: string) => void = () => {},
): KeychainEntry | string {
  const absent = keychainAbsence(env);
  if (absent) return absent;
  const deadline = keychainTimeoutMs(env);
  const binding = findBinding();
  if (typeof binding !== 'string') return binding.absent;
  const account = `${profile}@${resolve(configFile)}`;
  const label = storeLabel(process.platform);
  let unreachable: KeychainUnreachable | undefined;

  const call = (op: 'get' | 'set' | 'remove', key?: string): string | boolean | null => {
    if (unreachable) throw unreachable;
    const started = Date.now();
    const { spawnSync } = requireBuiltin('node:child_process') as typeof ChildProcess;
    const child = spawnSync(process.execPath, ['-e', CHILD], {
      // The key goes on stdin, never in the arguments (which ps shows to every user).
      input: JSON.stringify({ binding, service: SERVICE, account, op, key, ms: deadline }),
      env: childEnv(env),
      encoding: 'utf8',
      stdio: ['pipe', 'pipe', 'pipe'],
      timeout: deadline + STARTUP_ALLOWANCE_MS,
      killSignal: 'SIGKILL',
      windowsHide: true,
    });
    const answer = lastAnswer(child.stdout ?? '');
    debug(`keychain ${op}: ${Date.now() - started} ms`);
    if (answer && 'ok' in answer) return answer.value;
    if (answer && 'phase' in answer && answer.phase === 'call') throw new Error(answer.error);
    if (answer && 'phase' in answer) {
      unreachable = new KeychainUnreachable(
        answer.phase === 'load'
          ? `${label} could not be used (@napi-rs/keyring could not be loaded: ${keychainError(answer.error)})`
          : `${label} could not be reached (${keychainError(answer.error)})`,
        false,
      );
    } else if (answer || (child.error as NodeJS.ErrnoException | undefined)?.code === 'ETIMEDOUT') {
      // Its watchdog's word, or spawnSync's own bound (a child that never even started its call).
      unreachable = new KeychainUnreachable(`${label} did not answer within ${seconds(deadline)}`, true);
    } else {
      const why =
        child.error?.message ??
        (child.signal
          ? `its helper process was killed by ${child.signal}`
          : `its helper process ended with status ${child.status}`);
      unreachable = new KeychainUnreachable(`${label} could not be asked (${keychainError(why)})`, false);
    }
    throw unreachable;
  };

  return {
    label,
    get: () => {
      const value = call('get');
      return typeof value === 'string' ? value : undefined;
    },
    set: (key) => {
      call('set', key);
    },
    remove: () => call('remove') === true,
    get unreachable() {
      return unreachable;
    },
  };
}

/** A keychain error in one line, with nothing of the key (the binding's messages hold none). */
export function keychainError(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.split('\n')[0]!.replace(/^Platform failure: /, '');
}
