import type { Context } from '../../context.js';
import { historyDbFile } from '../../history/store.js';

export async function runPath(ctx: Context): Promise<void> {
  ctx.io.out(historyDbFile(ctx.env));
}
