import type { Context } from '../../context.js';
import type { SettingKey } from '../../settings/keys.js';

export async function runGet(ctx: Context, key: SettingKey): Promise<void> {
  const resolved = ctx.settings.resolve(key);
  if (ctx.json) ctx.io.json({ key, value: resolved.value ?? null, source: resolved.source });
  else if (resolved.value !== undefined) ctx.io.out(resolved.value);
}
