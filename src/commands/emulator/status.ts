// `aip emulator status`: its help and examples; the code that runs is status.run.ts.

import type { Context } from '../../context.js';
import { examples } from '../examples.js';
import type { Parent } from '../types.js';
import { parsePort } from './start.js';

function define(emulator: Parent) {
  const status = emulator
    .command('status')
    .description('show whether an emulator is running, where, and how many requests it has served')
    .option(
      '--port <port>',
      'the port to look on when no detached emulator is recorded there (default 4010): finds one started in the foreground',
      parsePort,
    );
  return examples(status, [
    'aip emulator status',
    'aip emulator status --port 4011',
    'aip emulator status --json',
  ]);
}

export function registerStatus(emulator: Parent, ctx: Context): void {
  define(emulator).action(async (opts) => {
    const { runStatus } = await import('./status.run.js');
    await runStatus(ctx, opts);
  });
}
