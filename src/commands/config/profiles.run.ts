import type { Context } from '../../context.js';
import { printTable } from '../../output/table.js';
import { readConfigFile } from '../../settings/config-file.js';
import { BUILTIN_PROFILES } from '../../settings/profiles.js';

export async function runProfiles(ctx: Context): Promise<void> {
  const { io, settings } = ctx;
  const stored = readConfigFile(settings.configFile).profiles;
  const names = [...new Set([...Object.keys(BUILTIN_PROFILES), ...Object.keys(stored)])];
  const rows = names.map((name) => ({
    name,
    active: name === settings.profile,
    builtin: Object.hasOwn(BUILTIN_PROFILES, name),
    stored: Object.hasOwn(stored, name),
    key_stored: Boolean(stored[name]?.['api-key']),
  }));
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
      value: (r) =>
        r.key_stored ? 'stored' : r.builtin && BUILTIN_PROFILES[r.name]?.['api-key'] ? 'built-in' : '',
    },
  ]);
}
