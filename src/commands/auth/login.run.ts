// `aip auth login`: take a key (hidden prompt on a terminal, or stdin with --with-key, never argv),
// check it against the inference model list, and only then store it: in the OS keychain where there
// is one, else (or with --insecure-storage) in the config file, mode 0600, atomically (auth/key-store.ts).

import { keyFingerprint } from '../../auth/fingerprint.js';
import { saveKey } from '../../auth/key-store.js';
import { probeInferenceKey } from '../../auth/verify.js';
import type { Context } from '../../context.js';
import { AUTH_HINT, AuthError, UsageError } from '../../errors/errors.js';
import { promptSecret } from '../../output/prompt.js';
import { assertKeySendable, rememberSecret } from '../../output/secrets.js';
import type { LoginOptions } from './login.js';

export function keyFromStdin(text: string): string {
  const key = text.trim();
  if (!key)
    throw new UsageError('no key on stdin: pipe the key in, e.g. aip auth login --with-key < key.txt');
  if (/\s/.test(key)) throw new UsageError('stdin held more than one word: pipe exactly one API key');
  return key;
}

async function readKey(ctx: Context, withKey: boolean): Promise<string> {
  const { io } = ctx;
  if (withKey) {
    if (io.isStdinTTY) io.info('Reading the key from stdin: paste it, then press Enter and Ctrl-D.');
    return keyFromStdin(await io.readStdin());
  }
  if (ctx.globals.input === false) {
    throw new UsageError(
      'no key given and prompting is off (--no-input): pipe the key to aip auth login --with-key',
    );
  }
  if (!io.isStdinTTY)
    throw new UsageError('stdin is not a terminal: pipe the key to aip auth login --with-key');
  io.info('Paste an API key (create one at https://wandb.ai/authorize); it will not be shown.');
  return promptSecret(io, 'API key: ');
}

export async function runLogin(ctx: Context, opts: LoginOptions): Promise<void> {
  const { io } = ctx;
  const settings = ctx.settings;
  settings.allowNewProfile();
  const key = await readKey(ctx, opts.withKey === true);
  rememberSecret(key);
  // Refused before it is checked: a key no HTTP header can carry would fail every request.
  assertKeySendable(key, opts.withKey === true ? 'stdin' : 'the prompt');

  const check = await io.withSpinner('Checking the key against the inference model list…', () =>
    probeInferenceKey(ctx, key),
  );
  if (check.key === 'rejected') {
    throw new AuthError(`the key was rejected by ${check.url} and was not saved (${check.detail})`, {
      hint: AUTH_HINT,
    });
  }
  if (check.error) {
    check.error.message = `could not check the key, so it was not saved: ${check.error.message}`;
    throw check.error;
  }

  const saved = await saveKey(settings, key, opts.insecureStorage === true);
  const accepted = `accepted by ${check.url}${check.detail ? `, ${check.detail}` : ''}`;
  const profile = settings.profile;
  if (saved.storage === 'keychain') {
    io.info(
      `Logged in: key ${keyFingerprint(key)} of profile "${profile}" saved to ${saved.where} (${accepted})`,
    );
    if (saved.movedFromFile)
      io.info(
        `Moved the key of profile "${profile}" out of ${settings.configFile}, where it was in plain text`,
      );
  } else {
    // As gh's "Storing token in plain text": said each time, with why.
    io.warn(`Storing the key in plain text in ${saved.where} (mode 0600): ${saved.fileBecause}`);
    io.info(
      `Logged in: key ${keyFingerprint(key)} saved to profile "${profile}" in ${saved.where} (${accepted})`,
    );
    if (saved.removedFromKeychain) io.info(`Removed the key of profile "${profile}" from the keychain`);
    if (saved.keychainUnreachable)
      io.warn(
        `could not remove a key of profile "${profile}" from the keychain: ${saved.keychainLeft}; one stored there before would be used before the file's once it answers: then run 'aip auth logout' and log in again`,
      );
    else if (saved.keychainLeft)
      io.warn(
        `could not remove the key of profile "${profile}" from the keychain (${saved.keychainLeft}): it is used before the file's; run 'aip auth logout' and log in again`,
      );
  }
  if (ctx.env.AIP_API_KEY?.trim())
    io.warn('AIP_API_KEY is set in the environment and takes precedence over the saved key');
}
