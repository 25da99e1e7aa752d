import type { Context } from '../../context.js';

/** The one command that prints a key, because that is its whole purpose: $(aip auth token). */
export async function runToken(ctx: Context): Promise<void> {
  const { key } = ctx.requireApiKey();
  ctx.io.writeSecret(`${key}\n`);
}
