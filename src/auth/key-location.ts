// Where the key in use lives, in words, for `aip auth status` and `aip doctor`.

import type { KeyStorage, Settings } from '../settings/resolve.js';

export function keyLocation(settings: Settings, storage: KeyStorage): string {
  if (storage === 'keychain') return settings.keychain()?.label ?? 'the keychain';
  if (storage === 'file') return `plain text in ${settings.configFile} (mode 0600)`;
  if (storage === 'env') return 'the environment';
  return 'aip itself (the built-in emulator key)';
}
