// `aip config get`: its argument, help and examples; the code that runs is get.run.ts.

import type { Context } from '../../context.js';
import { examples } from '../examples.js';
import type { Parent } from '../types.js';
import { keyArgument } from './arguments.js';

function define(config: Parent) {
  const get = config
    .command('get')
    .description('print the value in effect for a setting')
    .addArgument(keyArgument());
  return examples(get, ['aip config get project', 'aip --profile local config get base-url']);
}

export function registerGet(config: Parent, ctx: Context): void {
  define(config).action(async (key) => {
    const { runGet } = await import('./get.run.js');
    await runGet(ctx, key);
  });
}
