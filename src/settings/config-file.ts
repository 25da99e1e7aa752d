// Where the config file lives and how it is read. Reading is done here, with plain fs and JSON.parse,
// because every command reads settings and conf costs ~70 ms to load; writing goes through conf
// (settings/json-store.ts), which makes every write atomic and mode 0600.

import { createRequire } from 'node:module';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { UsageError } from '../errors/errors.js';
import { isObject } from '../lib/json.js';
import { dictionary } from '../lib/own.js';
import { rememberSecret } from '../output/secrets.js';
import type { Env } from './global-options.js';
import type { SettingKey } from './keys.js';

/**
 * By require: an ES-module import of node:fs evaluates all its exports, and the getters among them
 * load fs's streams and more (~2 ms of every command's start-up; nothing here needs them).
 */
const { readFileSync, statSync } = createRequire(import.meta.url)('node:fs') as typeof import('node:fs');

export type ProfileData = Partial<Record<SettingKey | 'api-key', string>>;

export interface ConfigData {
  profiles: Record<string, ProfileData>;
}

export const CONFIG_FILE_NAME = 'config.json';

/** AIP_CONFIG_DIR, else $XDG_CONFIG_HOME/aip, else ~/.config/aip. */
export function configDir(env: Env): string {
  if (env.AIP_CONFIG_DIR) return env.AIP_CONFIG_DIR;
  const base = env.XDG_CONFIG_HOME || join(env.HOME || homedir(), '.config');
  return join(base, 'aip');
}

export function configFilePath(env: Env): string {
  return join(configDir(env), CONFIG_FILE_NAME);
}

function corrupt(file: string, problem: string): UsageError {
  return new UsageError(
    `config file ${file} ${problem}: fix it by hand or delete it (aip config set / aip auth login write a new one)`,
  );
}

/** The parsed file; an empty config when there is none. Never repairs or rewrites anything. */
export function readConfigFile(file: string): ConfigData {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return { profiles: dictionary() };
    throw new UsageError(`cannot read config file ${file}: ${code ?? (error as Error).message}`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw corrupt(file, `is not valid JSON (${(error as Error).message.split('\n')[0]})`);
  }
  if (!isObject(parsed)) throw corrupt(file, 'does not hold a JSON object');
  const given = parsed.profiles ?? {};
  if (!isObject(given)) throw corrupt(file, 'has a "profiles" entry that is not an object');
  // Dictionaries without a prototype: a profile (or a setting) is found by name only if the file holds
  // it, never as something every object inherits (a profile named `constructor`, `toString`…).
  const profiles = dictionary<ProfileData>();
  for (const [name, profile] of Object.entries(given)) {
    if (!isObject(profile)) throw corrupt(file, `has a profile "${name}" that is not an object`);
    for (const [key, value] of Object.entries(profile)) {
      if (typeof value !== 'string')
        throw corrupt(file, `has a non-string value for "${key}" in profile "${name}"`);
    }
    // Every stored key is masked wherever it would show, used by this command or not (a server may
    // echo one back, even to a command that sent none).
    rememberSecret(profile['api-key'] as string | undefined);
    profiles[name] = dictionary(profile as ProfileData);
  }
  return { ...parsed, profiles };
}

export interface PermissionProblem {
  path: string;
  /** A file others could change decides where aip sends the key: that fails `aip doctor`. */
  severity: 'fail' | 'warn';
  message: string;
}

const octal = (mode: number) => `0${(mode & 0o777).toString(8)}`;

/** Who, besides the owner, may write: "group", "others", "group and others". */
function writers(mode: number): string | undefined {
  const who = [mode & 0o020 ? 'group' : '', mode & 0o002 ? 'others' : ''].filter(Boolean);
  return who.length ? who.join(' and ') : undefined;
}

/**
 * What is wrong with the permissions of the config file and its directory, as ssh judges its own: one
 * that group or others can write (or that another user owns) lets them point aip at a server of theirs
 * and have it send the key there; a file that holds a key and others can read gives the key away.
 * Nothing when the file does not exist; never throws (a check, not a read).
 */
export function configPermissionProblems(file: string, holdsKey: boolean): PermissionProblem[] {
  const problems: PermissionProblem[] = [];
  const uid = process.getuid?.();
  for (const [path, kind, fix] of [
    [dirname(file), 'directory', 700],
    [file, 'file', 600],
  ] as const) {
    let stat: { mode: number; uid: number };
    try {
      stat = statSync(path);
    } catch {
      return problems;
    }
    // A sticky directory (/tmp) lets others add files but not replace the owner's: the owner check
    // of the file below covers a file planted there first.
    const who = kind === 'directory' && stat.mode & 0o1000 ? undefined : writers(stat.mode);
    if (who) {
      problems.push({
        path,
        severity: 'fail',
        message: `the config ${kind} ${path} can be changed by ${who} (mode ${octal(stat.mode)}): anyone who can change it can send your key to a server of theirs; fix it with chmod ${fix} ${path}`,
      });
    }
    if (uid !== undefined && stat.uid !== uid && stat.uid !== 0) {
      problems.push({
        path,
        severity: 'fail',
        message: `the config ${kind} ${path} belongs to another user (uid ${stat.uid}): fix it with chown ${uid} ${path}`,
      });
    }
    if (kind === 'file' && holdsKey && stat.mode & 0o044) {
      problems.push({
        path,
        severity: 'warn',
        message: `the config file ${path} holds an API key and can be read by ${stat.mode & 0o004 ? 'others' : 'group'} (mode ${octal(stat.mode)}): fix it with chmod 600 ${path}`,
      });
    }
  }
  return problems;
}
