// Where the config file lives and how it is read. Reading is done here, with plain fs and JSON.parse,
// because every command reads settings and conf costs ~70 ms to load; writing goes through conf
// (config-writer.ts), which makes every write atomic and mode 0600.

import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { UsageError } from '../errors.js';
import type { Env } from '../globals.js';
import { isObject } from '../json.js';
import { rememberSecret } from '../secrets.js';
import type { SettingKey } from './keys.js';

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
    if (code === 'ENOENT' || code === 'ENOTDIR') return { profiles: {} };
    throw new UsageError(`cannot read config file ${file}: ${code ?? (error as Error).message}`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw corrupt(file, `is not valid JSON (${(error as Error).message.split('\n')[0]})`);
  }
  if (!isObject(parsed)) throw corrupt(file, 'does not hold a JSON object');
  const profiles = parsed.profiles ?? {};
  if (!isObject(profiles)) throw corrupt(file, 'has a "profiles" entry that is not an object');
  for (const [name, profile] of Object.entries(profiles)) {
    if (!isObject(profile)) throw corrupt(file, `has a profile "${name}" that is not an object`);
    for (const [key, value] of Object.entries(profile)) {
      if (typeof value !== 'string')
        throw corrupt(file, `has a non-string value for "${key}" in profile "${name}"`);
    }
    // Every stored key is masked wherever it would show, used by this command or not (a server may
    // echo one back, even to a command that sent none).
    rememberSecret(profile['api-key'] as string | undefined);
  }
  return { ...parsed, profiles: profiles as Record<string, ProfileData> };
}
