// `aip auth status`: its help and examples; the code that runs is status.run.ts.

import type { Context } from '../../context.js';
import { examples } from '../examples.js';
import type { Parent } from '../types.js';

function define(auth: Parent) {
  const status = auth
    .command('status')
    .description(
      'show the key in use (masked) and its source, the project, the URLs, and whether each API accepts the key',
    );
  return examples(status, ['aip auth status', 'aip --profile local auth status --json']);
}

export function registerStatus(auth: Parent, ctx: Context): void {
  define(auth).action(async () => {
    const { runStatus } = await import('./status.run.js');
    await runStatus(ctx);
  });
}
