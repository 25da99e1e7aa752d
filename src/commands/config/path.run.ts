import type { Context } from '../../context.js';

export async function runPath(ctx: Context): Promise<void> {
  ctx.io.out(ctx.configFile);
}
