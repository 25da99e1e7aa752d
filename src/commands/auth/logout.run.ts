import { keyFingerprint } from '../../auth/fingerprint.js';
import { removeKey } from '../../auth/key-store.js';
import type { Context } from '../../context.js';
import { CliError } from '../../errors/errors.js';
import { builtinProfile } from '../../settings/profiles.js';

export async function runLogout(ctx: Context): Promise<void> {
  const { io, settings } = ctx;
  const profile = settings.profile;
  settings.storedProfile(); // a profile name that does not exist is a typo, reported as such
  // From both places: the keychain and the file (a key put in the file with --insecure-storage, or
  // before aip used the keychain).
  const removed = await removeKey(settings);
  if (removed.keychain !== undefined)
    io.info(
      `Removed the key ${keyFingerprint(removed.keychain)} of profile "${profile}" from ${removed.keychainLabel}`,
    );
  if (removed.file)
    io.info(
      `Removed the key ${keyFingerprint(removed.file)} from profile "${profile}" in ${settings.configFile}`,
    );
  // A key left in the keychain is still used: not logged out, and said as a failure.
  if (removed.keychainUnreachable)
    throw new CliError(
      `could not remove the key of profile "${profile}" from the keychain: ${removed.keychainFailed}; a key stored there, if any, is still there: run 'aip auth logout' again once it answers`,
    );
  if (removed.keychainFailed)
    throw new CliError(
      `could not remove the key of profile "${profile}" from ${removed.keychainLabel} (${removed.keychainFailed}): it is still stored there`,
    );
  if (removed.keychain === undefined && !removed.file) io.info(`No key is stored for profile "${profile}"`);
  // Say what still provides a key, so that "logged out" is not mistaken for "no key will be sent".
  if (ctx.env.AIP_API_KEY?.trim()) io.warn('AIP_API_KEY is set in the environment and is still used');
  else if (builtinProfile(profile)?.['api-key'])
    io.info(`Profile "${profile}" still uses its built-in emulator key`);
  else if (ctx.env.WANDB_API_KEY?.trim())
    io.warn('WANDB_API_KEY is set in the environment and is still used');
}
