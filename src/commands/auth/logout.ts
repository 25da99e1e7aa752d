import type { Context } from '../../context.js';
import { maskSecret } from '../../secrets.js';
import { readConfigFile } from '../../settings/config-file.js';
import { updateConfig } from '../../settings/config-writer.js';
import { BUILTIN_PROFILES } from '../../settings/profiles.js';

export async function runLogout(ctx: Context): Promise<void> {
  const { io } = ctx;
  const profile = ctx.settings.profile;
  const file = ctx.configFile;
  const stored = readConfigFile(file).profiles[profile]?.['api-key'];
  if (stored) {
    await updateConfig(file, (data) => {
      delete data.profiles[profile]?.['api-key'];
    });
    io.info(`Removed the key ${maskSecret(stored)} from profile "${profile}" in ${file}`);
  } else {
    io.info(`No key is stored for profile "${profile}"`);
  }
  // Say what still provides a key, so that "logged out" is not mistaken for "no key will be sent".
  if (ctx.env.AIP_API_KEY?.trim()) io.warn('AIP_API_KEY is set in the environment and is still used');
  else if (BUILTIN_PROFILES[profile]?.['api-key'])
    io.info(`Profile "${profile}" still uses its built-in emulator key`);
  else if (ctx.env.WANDB_API_KEY?.trim())
    io.warn('WANDB_API_KEY is set in the environment and is still used');
}
