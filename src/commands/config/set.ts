// `aip config set` / `unset`: change one setting of the profile. Values are checked before anything
// is written, and the write is atomic (config-writer.ts).

import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { updateConfig } from '../../settings/json-store.js';
import { SETTINGS, type SettingKey } from '../../settings/keys.js';

function overriddenBy(ctx: Context, key: SettingKey): string | undefined {
  const env = SETTINGS[key].env;
  return env && ctx.env[env]?.trim() ? env : undefined;
}

export async function runSet(ctx: Context, key: string, rawValue: string): Promise<void> {
  const spec = SETTINGS[key as SettingKey];
  let value: string;
  try {
    value = spec.normalize(rawValue);
  } catch (error) {
    throw new UsageError(`invalid value for ${key}: ${(error as Error).message}`);
  }
  const { settings, io } = ctx;
  settings.allowNewProfile();
  await updateConfig(settings.configFile, (data) => {
    data.profiles[settings.profile] = { ...data.profiles[settings.profile], [key]: value };
  });
  io.info(`Set ${key} to ${value} in profile "${settings.profile}"`);
  const warning = spec.warning?.(value);
  if (warning) io.warn(warning);
  const env = overriddenBy(ctx, key as SettingKey);
  if (env) io.warn(`${env} is set in the environment and overrides this value`);
}

export async function runUnset(ctx: Context, key: string): Promise<void> {
  const { settings, io } = ctx;
  const profile = settings.profile;
  settings.storedProfile(); // a profile name that does not exist is a typo, reported as such
  const wrote = await updateConfig(settings.configFile, (data) => {
    const stored = data.profiles[profile];
    if (stored?.[key as SettingKey] === undefined) return false;
    delete stored[key as SettingKey];
  });
  io.info(wrote ? `Unset ${key} in profile "${profile}"` : `${key} is not set in profile "${profile}"`);
}
