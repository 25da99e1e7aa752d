// `aip emulator stop`: its help and examples; the code that runs is stop.run.ts.

import type { Context } from '../../context.js';
import { examples } from '../examples.js';
import type { Parent } from '../types.js';

function define(emulator: Parent) {
  const stop = emulator.command('stop').description('stop the emulator started with --detach');
  return examples(stop, ['aip emulator stop']);
}

export function registerStop(emulator: Parent, ctx: Context): void {
  define(emulator).action(async () => {
    const { runStop } = await import('./stop.run.js');
    await runStop(ctx);
  });
}
