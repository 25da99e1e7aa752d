// Where `auth login` puts the key and where `auth logout` takes it from: the OS keychain where there
// is one (settings/keychain.ts), else the profile in the config file (mode 0600, written atomically by
// settings/json-store.ts). Only one place holds a profile's key: saving to one removes it from the
// other, in an order that never loses it (the new place is written and read back before the old one
// is emptied).

import { ownValue } from '../lib/own.js';
import { updateConfig } from '../settings/json-store.js';
import { type KeychainEntry, keychainError } from '../settings/keychain.js';
import type { Settings } from '../settings/resolve.js';

export interface SavedKey {
  storage: 'keychain' | 'file';
  /** The keychain's label ("the system keychain (Secret Service)"), or the config file's path. */
  where: string;
  /** Why the file and not the keychain: "--insecure-storage", "no D-Bus session …", an error. */
  fileBecause?: string;
  /** The file held a key for the profile, now removed from it (moved to the keychain). */
  movedFromFile: boolean;
  /** The keychain held a key for the profile, now removed from it (the file holds the key now). */
  removedFromKeychain: boolean;
  /** A keychain entry that could not be removed (it would take precedence over the file's key). */
  keychainLeft?: string;
  /** keychainLeft because the keychain did not answer or could not be reached: what it holds is unknown. */
  keychainUnreachable?: boolean;
}

/** Writes, reads back, and only then trusts the keychain; undefined when it worked, else why not. */
function writeKeychain(entry: KeychainEntry, key: string): string | undefined {
  try {
    entry.set(key);
    if (entry.get() === key) return undefined;
    // Not what was written: nothing of it is left behind to be taken before the file's key.
    entry.remove();
    return 'the key read back from it differed';
  } catch (error) {
    return keychainError(error);
  }
}

export async function saveKey(settings: Settings, key: string, insecure: boolean): Promise<SavedKey> {
  const file = settings.configFile;
  const profile = settings.profile;
  const entry = settings.keychain();
  const failed = entry && !insecure ? writeKeychain(entry, key) : undefined;
  if (entry && !insecure && failed === undefined) {
    // In the keychain now: out of the file. The profile itself stays in (or is added to) the file, as
    // one that exists: a profile name that is in no file is taken for a typo.
    let moved = false;
    await updateConfig(file, (data) => {
      const stored = ownValue(data.profiles, profile);
      moved = stored?.['api-key'] !== undefined;
      if (stored && !moved) return false;
      const { 'api-key': _old, ...rest } = stored ?? {};
      data.profiles[profile] = rest;
    });
    return { storage: 'keychain', where: entry.label, movedFromFile: moved, removedFromKeychain: false };
  }

  await updateConfig(file, (data) => {
    data.profiles[profile] = { ...ownValue(data.profiles, profile), 'api-key': key };
  });
  const saved: SavedKey = {
    storage: 'file',
    where: file,
    fileBecause: insecure
      ? '--insecure-storage'
      : (failed ?? `no keychain here: ${settings.keychainAbsence() ?? 'unknown'}`),
    movedFromFile: false,
    removedFromKeychain: false,
  };
  // The file holds the key now, where there is a keychain (--insecure-storage, or a keychain write
  // that failed): an old entry left there would still be used first, so it goes. Unless the write
  // failed because the keychain did not answer or could not be reached: the same would befall the
  // removal (after the same wait), and the one warning of login says why the file holds the key.
  if (entry && !entry.unreachable) {
    try {
      saved.removedFromKeychain = entry.remove();
    } catch (error) {
      saved.keychainLeft = keychainError(error);
      if (entry.unreachable) saved.keychainUnreachable = true;
    }
  }
  return saved;
}

export interface RemovedKey {
  /** The key removed from the keychain, if it held one. */
  keychain?: string;
  keychainLabel?: string;
  /** Why the keychain could not be emptied, if it could not. */
  keychainFailed?: string;
  /** keychainFailed because it did not answer or could not be reached: whether it holds a key is unknown. */
  keychainUnreachable?: boolean;
  /** The key removed from the file, if it held one. */
  file?: string;
}

export async function removeKey(settings: Settings): Promise<RemovedKey> {
  const removed: RemovedKey = {};
  const entry = settings.keychain();
  if (entry) {
    removed.keychainLabel = entry.label;
    try {
      const held = entry.get();
      if (entry.remove()) removed.keychain = held ?? '';
    } catch (error) {
      removed.keychainFailed = keychainError(error);
      if (entry.unreachable) removed.keychainUnreachable = true;
    }
  }
  const profile = settings.profile;
  await updateConfig(settings.configFile, (data) => {
    const stored = ownValue(data.profiles, profile);
    removed.file = stored?.['api-key'];
    if (!stored || removed.file === undefined) return false;
    delete stored['api-key'];
  });
  return removed;
}
