// Settings resolution, highest first: flag > environment > the profile in the config file > the
// built-in profile > built-in default. The config file is read only when a value is not already given
// by a flag or the environment, so CI that sets AIP_API_KEY and friends never needs one. The API key
// is stored in the OS keychain where there is one (settings/keychain.ts), else in the profile in the file.

import { UsageError } from '../errors/errors.js';
import { ownValue } from '../lib/own.js';
import { assertKeySendable, rememberSecret } from '../output/secrets.js';
import {
  type ConfigData,
  configPermissionProblems,
  type PermissionProblem,
  type ProfileData,
  readConfigFile,
} from './config-file.js';
import type { Env, GlobalOptions } from './global-options.js';
import { type KeychainEntry, KeychainUnreachable, keychainError, openKeychain } from './keychain.js';
import { SETTINGS, type SettingKey } from './keys.js';
import { builtinProfile, checkProfileName, DEFAULT_PROFILE, isBuiltinProfile } from './profiles.js';

export type SourceKind = 'flag' | 'env' | 'config' | 'keychain' | 'builtin' | 'default' | 'unset';

/** Where the key in use lives: `aip auth status` (api_key.storage) and `aip doctor` say it. */
export type KeyStorage = 'env' | 'keychain' | 'file' | 'builtin';

export interface SettingsOptions {
  /** Told once, when the file is read, of permissions that put the key at risk (as ssh warns). */
  warn?: (message: string) => void;
  /** Debug-level notes (shown with --debug): why the keychain was not used. */
  debug?: (message: string) => void;
  /**
   * Whether the stored key is looked for in the OS keychain too. Off for the `::add-mask::` lines aip
   * writes on CI runners at the start of every command (ci/start.ts): that must not load a native
   * module, or reach for a keychain, in commands that need no key.
   */
  keychain?: boolean;
}

export interface Resolved {
  value: string | undefined;
  kind: SourceKind;
  /** Where the value came from, for people: "flag --project", "env AIP_PROJECT", "config profile x"… */
  source: string;
}

export interface ResolvedKey {
  key: string;
  kind: SourceKind;
  source: string;
  storage: KeyStorage;
}

function envValue(env: Env, name: string): string | undefined {
  const value = env[name]?.trim();
  return value ? value : undefined;
}

export class Settings {
  readonly profile: string;
  readonly profileSource: string;
  private data: ConfigData | undefined;
  private newProfileAllowed = false;
  private cachedKeychain: KeychainEntry | string | undefined;
  /** The keychain's key for this profile, once asked (see keychainKey). */
  private keychainRead: { key: string | undefined; failed?: unknown; told?: boolean } | undefined;
  private warn: (message: string) => void;
  private readonly debug: (message: string) => void;

  constructor(
    private readonly globals: GlobalOptions,
    private readonly env: Env,
    readonly configFile: string,
    private readonly options: SettingsOptions = {},
  ) {
    this.warn = options.warn ?? (() => {});
    this.debug = options.debug ?? (() => {});
    if (globals.profile) {
      this.profile = checkProfileName(globals.profile);
      this.profileSource = 'flag --profile';
    } else if (envValue(env, 'AIP_PROFILE')) {
      this.profile = checkProfileName(envValue(env, 'AIP_PROFILE')!);
      this.profileSource = 'env AIP_PROFILE';
    } else {
      this.profile = DEFAULT_PROFILE;
      this.profileSource = 'default';
    }
  }

  /** The whole config file (read once); its permissions checked then. */
  config(): ConfigData {
    if (!this.data) {
      this.data = readConfigFile(this.configFile);
      for (const problem of this.permissionProblems()) this.warn(problem.message);
    }
    return this.data;
  }

  /** What is wrong with the config file's permissions (`aip doctor` shows them instead of warning). */
  permissionProblems(): PermissionProblem[] {
    const holdsKey = Object.values(this.config().profiles).some((p) => p['api-key'] !== undefined);
    return configPermissionProblems(this.configFile, holdsKey);
  }

  /** For `aip doctor`, which reports the permissions in its table. */
  silencePermissionWarnings(): void {
    this.warn = () => {};
  }

  /** For commands that create the profile they write to (config set, auth login). */
  allowNewProfile(): void {
    this.newProfileAllowed = true;
  }

  /** The stored profile; an error for a name that is neither stored nor built in (a typo, usually). */
  storedProfile(): ProfileData | undefined {
    const stored = ownValue(this.config().profiles, this.profile);
    if (!stored && !isBuiltinProfile(this.profile) && !this.newProfileAllowed) {
      throw new UsageError(
        `profile "${this.profile}" does not exist in ${this.configFile}: create it with 'aip --profile ${this.profile} config set <key> <value>' or 'aip --profile ${this.profile} auth login'`,
      );
    }
    return stored;
  }

  resolve(key: SettingKey): Resolved {
    const spec = SETTINGS[key];
    if (spec.flag) {
      const flagValue = this.globals[spec.flag.option];
      if (typeof flagValue === 'string')
        return { value: flagValue, kind: 'flag', source: `flag ${spec.flag.name}` };
    }
    if (spec.env) {
      const raw = envValue(this.env, spec.env);
      if (raw !== undefined)
        return { value: checked(spec.normalize, raw, spec.env), kind: 'env', source: `env ${spec.env}` };
    }
    const stored = this.storedProfile()?.[key];
    if (stored !== undefined) {
      const where = `${this.configFile}, profile "${this.profile}", ${key}`;
      return {
        value: checked(spec.normalize, stored, where),
        kind: 'config',
        source: `config profile ${this.profile}`,
      };
    }
    const builtin = ownValue(builtinProfile(this.profile), key);
    if (builtin !== undefined)
      return { value: builtin, kind: 'builtin', source: `built-in profile ${this.profile}` };
    if (spec.fallback !== undefined) return { value: spec.fallback, kind: 'default', source: 'default' };
    return { value: undefined, kind: 'unset', source: 'unset' };
  }

  get(key: SettingKey): string | undefined {
    return this.resolve(key).value;
  }

  /**
   * AIP_API_KEY, else the profile's stored key (keychain, else file), else the built-in profile's key (the emulator's for
   * `local`), else WANDB_API_KEY: the platform's own variable is only a fallback, so that it never
   * overrides a key chosen for aip (and the local profile keeps working in a W&B user's shell).
   */
  apiKey(): ResolvedKey | undefined {
    const resolved = this.findApiKey();
    rememberSecret(resolved?.key);
    this.tellKeychainFailure(resolved);
    // A key no HTTP header can carry (a line feed in it) is refused here, wherever it came from, before
    // any request: Node's http would throw on each, and that would be retried as a network error.
    if (resolved) assertKeySendable(resolved.key, resolved.source);
    return resolved;
  }

  /**
   * A keychain that failed, said once: a warning when it cost the deadline (every command would wait
   * that long, so the user is told why and what was used instead) or when no key was found at all (the
   * "no API key" that follows needs its reason); otherwise (a locked store, no bus at that address) a
   * debug note, and the file's key is used.
   */
  private tellKeychainFailure(resolved: ResolvedKey | undefined): void {
    const read = this.keychainRead;
    if (!read || read.failed === undefined || read.told) return;
    read.told = true;
    const why = keychainError(read.failed);
    const timedOut = read.failed instanceof KeychainUnreachable && read.failed.timedOut;
    if (!timedOut && resolved) {
      this.debug(`keychain not read: ${why}`);
      return;
    }
    const instead = !resolved
      ? `no key of profile "${this.profile}" could be read from it`
      : resolved.storage === 'file'
        ? `using the key of profile "${this.profile}" in ${this.configFile}`
        : `using the key from ${resolved.source}`;
    this.warn(`${why}: ${instead} (AIP_KEYRING=off skips the keychain)`);
  }

  /**
   * The keychain entry of this profile (settings/keychain.ts), opened once; undefined where there is no
   * keychain (the key is then in the file), or for Settings made with `keychain: false`.
   */
  keychain(): KeychainEntry | undefined {
    const entry = this.openedKeychain();
    return typeof entry === 'string' ? undefined : entry;
  }

  /** Why there is no keychain here ("AIP_KEYRING=off", "no D-Bus session …"); undefined if there is. */
  keychainAbsence(): string | undefined {
    const entry = this.openedKeychain();
    return typeof entry === 'string' ? entry : undefined;
  }

  private openedKeychain(): KeychainEntry | string {
    if (this.options.keychain !== true) return 'not asked';
    if (this.cachedKeychain === undefined) {
      this.cachedKeychain = openKeychain(this.env, this.configFile, this.profile, this.debug);
      if (typeof this.cachedKeychain === 'string') this.debug(`keychain not used: ${this.cachedKeychain}`);
    }
    return this.cachedKeychain;
  }

  /**
   * The key stored in the keychain, if any. A keychain that fails (locked, its service gone, silent
   * past its deadline) is not an error: the key in the file, if any, is used instead, and apiKey says
   * why once (tellKeychainFailure).
   */
  private keychainKey(): string | undefined {
    // Asked once per command: each ask is a D-Bus call that can take seconds (or prompt, on a desktop
    // with a locked keyring), and a command that makes many requests must send one key throughout.
    if (this.keychainRead) return this.keychainRead.key;
    const entry = this.keychain();
    let key: string | undefined;
    if (entry) {
      try {
        key = entry.get()?.trim() || undefined;
      } catch (error) {
        this.keychainRead = { key: undefined, failed: error };
        return undefined;
      }
    }
    this.keychainRead = { key };
    return key;
  }

  private findApiKey(): ResolvedKey | undefined {
    const fromEnv = envValue(this.env, 'AIP_API_KEY');
    if (fromEnv) return { key: fromEnv, kind: 'env', source: 'env AIP_API_KEY', storage: 'env' };
    // The stored key: in the keychain, else in the file. (storedProfile first: a profile name that
    // is neither stored nor built in is a typo, said as one, before any keychain is asked.)
    const stored = this.storedProfile()?.['api-key']?.trim();
    const inKeychain = this.keychainKey();
    if (inKeychain)
      return {
        key: inKeychain,
        kind: 'keychain',
        source: `keychain profile ${this.profile}`,
        storage: 'keychain',
      };
    if (stored)
      return { key: stored, kind: 'config', source: `config profile ${this.profile}`, storage: 'file' };
    const builtin = builtinProfile(this.profile)?.['api-key'];
    if (builtin)
      return {
        key: builtin,
        kind: 'builtin',
        source: `built-in profile ${this.profile}`,
        storage: 'builtin',
      };
    const wandb = envValue(this.env, 'WANDB_API_KEY');
    if (wandb) return { key: wandb, kind: 'env', source: 'env WANDB_API_KEY', storage: 'env' };
    return undefined;
  }
}

function checked(normalize: (v: string) => string, value: string, where: string): string {
  try {
    return normalize(value);
  } catch (error) {
    throw new UsageError(`${where}: ${(error as Error).message}`);
  }
}
