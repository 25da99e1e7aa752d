import { keyFingerprint } from '../../auth/fingerprint.js';
import type { Context } from '../../context.js';
import { updateConfig } from '../../settings/json-store.js';
import { BUILTIN_PROFILES } from '../../settings/profiles.js';

export async function runLogout(ctx: Context): Promise<void> {
  const { io, settings } = ctx;
  const profile = settings.profile;
  settings.storedProfile(); // a profile name that does not exist is a typo, reported as such
  const removed: { key?: string } = {};
  await updateConfig(settings.configFile, (data) => {
    const stored = data.profiles[profile];
    removed.key = stored?.['api-key'];
    if (!stored || removed.key === undefined) return false;
    delete stored['api-key'];
  });
  if (removed.key)
    io.info(
      `Removed the key ${keyFingerprint(removed.key)} from profile "${profile}" in ${settings.configFile}`,
    );
  else io.info(`No key is stored for profile "${profile}"`);
  // Say what still provides a key, so that "logged out" is not mistaken for "no key will be sent".
  if (ctx.env.AIP_API_KEY?.trim()) io.warn('AIP_API_KEY is set in the environment and is still used');
  else if (BUILTIN_PROFILES[profile]?.['api-key'])
    io.info(`Profile "${profile}" still uses its built-in emulator key`);
  else if (ctx.env.WANDB_API_KEY?.trim())
    io.warn('WANDB_API_KEY is set in the environment and is still used');
}
