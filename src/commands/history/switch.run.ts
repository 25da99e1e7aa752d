// `aip history on|off`: writes history/settings.json (history/switch.ts reads it), atomically and 0600,
// and says on stderr what is kept from now on; AIP_HISTORY, when set, wins over the file, and is named.
// A file that cannot be read is replaced: what the user asks now is what counts.

import { join } from 'node:path';
import type { Context } from '../../context.js';
import { writeFileAtomic } from '../../fs/atomic-write.js';
import { ensurePrivateDir } from '../../fs/private-dir.js';
import { historyDir, SWITCH_FILE } from '../../history/paths.js';
import { HISTORY_ENV, historySwitch, readSwitchFile, type SwitchFile } from '../../history/switch.js';
import type { OnOptions } from './switch.js';

function write(ctx: Context, value: SwitchFile): void {
  const dir = historyDir(ctx.env);
  ensurePrivateDir(dir);
  writeFileAtomic(join(dir, SWITCH_FILE), `${JSON.stringify(value, null, 2)}\n`, { mode: 0o600 });
  const kept = value.enabled
    ? `history on: the commands that talk to the platform are kept${value['history.bodies'] ? ', with their bodies (prompts, replies, samples)' : ', without bodies'}`
    : 'history off: nothing more is kept (aip history prune removes what is)';
  ctx.io.info(kept);
  const now = historySwitch(ctx.env, dir);
  if (
    ctx.env[HISTORY_ENV] !== undefined &&
    (now.enabled !== value.enabled || now.bodies !== value['history.bodies'])
  )
    ctx.io.warn(`${HISTORY_ENV}=${ctx.env[HISTORY_ENV]} is set, and wins over this in its shell`);
  if (ctx.json) ctx.io.json({ enabled: value.enabled, bodies: value['history.bodies'] });
}

export async function runOn(ctx: Context, options: OnOptions): Promise<void> {
  const current = readSwitchFile(historyDir(ctx.env)).value;
  const bodies = options.bodies ?? current?.['history.bodies'] ?? false;
  write(ctx, { enabled: true, 'history.bodies': bodies });
}

export async function runOff(ctx: Context): Promise<void> {
  const current = readSwitchFile(historyDir(ctx.env)).value;
  write(ctx, { enabled: false, 'history.bodies': current?.['history.bodies'] ?? false });
}
