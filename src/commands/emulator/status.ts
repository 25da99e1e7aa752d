// `aip emulator status`: its help and examples; the code that runs is status.run.ts.

import type { Context } from '../../context.js';
import { examples } from '../examples.js';
import type { Parent } from '../types.js';

function define(emulator: Parent) {
  const status = emulator
    .command('status')
    .description('show whether an emulator is running, where, and how many requests it has served');
  return examples(status, ['aip emulator status', 'aip emulator status --json']);
}

export function registerStatus(emulator: Parent, ctx: Context): void {
  define(emulator).action(async () => {
    const { runStatus } = await import('./status.run.js');
    await runStatus(ctx);
  });
}
