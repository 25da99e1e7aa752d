import type { Context } from '../../context.js';
import { hasOwnKey, ownValue } from '../../lib/own.js';
import { printTable } from '../../output/table.js';
import { readConfigFile } from '../../settings/config-file.js';
import { openKeychain } from '../../settings/keychain.js';
import { builtinProfile, isBuiltinProfile, profileNames } from '../../settings/profiles.js';

/**
 * Where a profile's own key is stored: in the file, or in the keychain (asked once per profile that
 * has none in the file; a keychain that cannot answer counts as none), or nowhere.
 */
function storedKeyIn(ctx: Context, name: string, inFile: boolean): 'file' | 'keychain' | undefined {
  if (inFile) return 'file';
  const entry = openKeychain(ctx.env, ctx.settings.configFile, name);
  if (typeof entry === 'string') return undefined;
  try {
    return entry.get() ? 'keychain' : undefined;
  } catch {
    return undefined;
  }
}

export async function runProfiles(ctx: Context): Promise<void> {
  const { io, settings } = ctx;
  const stored = readConfigFile(settings.configFile).profiles;
  const names = profileNames(stored);
  const rows = names.map((name) => {
    const keyStorage = storedKeyIn(ctx, name, Boolean(ownValue(stored, name)?.['api-key']));
    return {
      name,
      active: name === settings.profile,
      builtin: isBuiltinProfile(name),
      stored: hasOwnKey(stored, name),
      key_stored: keyStorage !== undefined,
      key_storage: keyStorage ?? null,
    };
  });
  if (ctx.json) return io.json(rows);
  printTable(io, rows, [
    { header: 'active', value: (r) => (r.active ? '*' : '') },
    { header: 'name', value: (r) => r.name, color: (t, r, s) => (r.active ? s.bold(t) : t) },
    {
      header: 'kind',
      value: (r) => [r.builtin && 'built-in', r.stored && 'stored'].filter(Boolean).join(', '),
    },
    {
      header: 'key',
      value: (r) => {
        if (r.key_storage === 'keychain') return 'keychain';
        if (r.key_stored) return 'stored';
        return r.builtin && builtinProfile(r.name)?.['api-key'] ? 'built-in' : '';
      },
    },
  ]);
}
