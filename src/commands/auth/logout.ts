// `aip auth logout`: its help and examples; the code that runs is logout.run.ts.

import type { Context } from '../../context.js';
import { examples } from '../examples.js';
import type { Parent } from '../types.js';

function define(auth: Parent) {
  const logout = auth.command('logout').description("remove the profile's stored key");
  return examples(logout, ['aip auth logout', 'aip --profile work auth logout']);
}

export function registerLogout(auth: Parent, ctx: Context): void {
  define(auth).action(async () => {
    const { runLogout } = await import('./logout.run.js');
    await runLogout(ctx);
  });
}
