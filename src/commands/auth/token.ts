// `aip auth token`: its help and examples; the code that runs is token.run.ts.

import type { Context } from '../../context.js';
import { examples } from '../examples.js';
import type { Parent } from '../types.js';

function define(auth: Parent) {
  const token = auth.command('token').description('print the key in use, for other tools: $(aip auth token)');
  return examples(token, [
    'curl -H "Authorization: Bearer $(aip auth token)" https://api.inference.wandb.ai/v1/models',
  ]);
}

export function registerToken(auth: Parent, ctx: Context): void {
  define(auth).action(async () => {
    const { runToken } = await import('./token.run.js');
    await runToken(ctx);
  });
}
