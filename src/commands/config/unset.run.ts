// `aip config unset`: remove one setting from the profile, so that the next source in line applies
// again. The write is atomic, as set's is.

import type { Context } from '../../context.js';
import { ownValue } from '../../lib/own.js';
import { updateConfig } from '../../settings/json-store.js';
import type { SettingKey } from '../../settings/keys.js';

export async function runUnset(ctx: Context, key: SettingKey): Promise<void> {
  const { settings, io } = ctx;
  const profile = settings.profile;
  settings.storedProfile(); // a profile name that does not exist is a typo, reported as such
  const wrote = await updateConfig(settings.configFile, (data) => {
    const stored = ownValue(data.profiles, profile);
    if (!stored || ownValue(stored, key) === undefined) return false;
    delete stored[key];
  });
  io.info(wrote ? `Unset ${key} in profile "${profile}"` : `${key} is not set in profile "${profile}"`);
}
