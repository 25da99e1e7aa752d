// `aip config set`: change one setting of the profile. Values are checked before anything
// is written, and the write is atomic (settings/json-store.ts).

import type { Context } from '../../context.js';
import { UsageError } from '../../errors/errors.js';
import { ownValue } from '../../lib/own.js';
import { updateConfig } from '../../settings/json-store.js';
import { SETTINGS, type SettingKey } from '../../settings/keys.js';

function overriddenBy(ctx: Context, key: SettingKey): string | undefined {
  const env = SETTINGS[key].env;
  return env && ctx.env[env]?.trim() ? env : undefined;
}

export async function runSet(ctx: Context, key: SettingKey, rawValue: string): Promise<void> {
  const spec = SETTINGS[key];
  let value: string;
  try {
    value = spec.normalize(rawValue);
  } catch (error) {
    throw new UsageError(`invalid value for ${key}: ${(error as Error).message}`);
  }
  const { settings, io } = ctx;
  settings.allowNewProfile();
  await updateConfig(settings.configFile, (data) => {
    data.profiles[settings.profile] = { ...ownValue(data.profiles, settings.profile), [key]: value };
  });
  io.info(`Set ${key} to ${value} in profile "${settings.profile}"`);
  const warning = spec.warning?.(value);
  if (warning) io.warn(warning);
  const env = overriddenBy(ctx, key);
  if (env) io.warn(`${env} is set in the environment and overrides this value`);
}
