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
// How long a call can take, measured with gnome-keyring 42 on a private bus: a store that does not
// answer (a stopped daemon) fails each D-Bus call after the binding's own 2 s reply timeout; a locked
// collection with no prompter (no display) fails at once ("unlock prompt was dismissed"). Only on a
// desktop, where a locked keyring shows its unlock dialog, does a call wait, for the person to answer
// it. No timeout of ours could bound a native call in this process (a worker thread blocked in native
// code keeps the process from exiting; a child process per call costs ~100 ms), so these are the bounds.
//
// The calls are synchronous: Settings.apiKey() is, and everything that sends the key resolves it
// through that. The binding's libdbus reads the bus address from the process's own environment, so
// the `env` checked here must be that environment (it is, but for tests that run main() in-process).

import { createRequire } from 'node:module';
import { resolve } from 'node:path';
import type { Env } from './global-options.js';

/** The one entry of a profile: `get` is undefined when there is none; every call may throw. */
export interface KeychainEntry {
  /** For people: "the system keychain (Secret Service)". */
  readonly label: string;
  get(): string | undefined;
  set(key: string): void;
  /** Whether there was an entry to remove. */
  remove(): boolean;
}

interface Binding {
  Entry: new (
    service: string,
    account: string,
    options?: { linux?: { store?: 'secret-service' | 'keyutils' } },
  ) => {
    getPassword(): string | null;
    setPassword(password: string): void;
    deletePassword(): boolean;
  };
}

const SERVICE = 'aip';

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

let binding: Binding | string | undefined;

/** The binding, or why it could not be loaded (not installed: an optional dependency; no binary). */
function loadBinding(): Binding | string {
  if (binding === undefined) {
    try {
      binding = createRequire(import.meta.url)('@napi-rs/keyring') as Binding;
    } catch (error) {
      binding = `@napi-rs/keyring could not be loaded (${(error as Error).message.split('\n')[0]})`;
    }
  }
  return binding;
}

/**
 * The keychain entry of `profile` of the config file `configFile`, or why there is none (the key then
 * stays in the file, which is not an error).
 *
 * The account is the profile and the config file's absolute path, not the profile alone: two config
 * directories (AIP_CONFIG_DIR, as tests and CI use, or two checkouts' settings) each have their own
 * "default" profile, and must not read or overwrite each other's key.
 */
export function openKeychain(env: Env, configFile: string, profile: string): KeychainEntry | string {
  const absent = keychainAbsence(env);
  if (absent) return absent;
  const loaded = loadBinding();
  if (typeof loaded === 'string') return loaded;
  const account = `${profile}@${resolve(configFile)}`;
  // Made on first use (it opens the D-Bus session), then kept for the calls that follow. Pinned to
  // the Secret Service: the binding would otherwise fall back to the kernel's keyutils store, which
  // forgets the key at reboot (the file is the fallback here, and says so).
  let made: InstanceType<Binding['Entry']> | undefined;
  const entry = () => {
    made ??= new loaded.Entry(SERVICE, account, { linux: { store: 'secret-service' } });
    return made;
  };
  return {
    label: storeLabel(process.platform),
    get: () => entry().getPassword() ?? undefined,
    set: (key) => entry().setPassword(key),
    remove: () => entry().deletePassword(),
  };
}

/** A keychain error in one line, with nothing of the key (the binding's messages hold none). */
export function keychainError(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.split('\n')[0]!.replace(/^Platform failure: /, '');
}
