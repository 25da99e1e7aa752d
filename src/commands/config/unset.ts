// `aip config unset`: its argument, help and examples; the code that runs is unset.run.ts.

import type { Context } from '../../context.js';
import { examples } from '../examples.js';
import type { Parent } from '../types.js';
import { keyArgument } from './arguments.js';

function define(config: Parent) {
  const unset = config
    .command('unset')
    .description('remove a setting from the profile (the next source in line applies again)')
    .addArgument(keyArgument());
  return examples(unset, ['aip config unset default-model']);
}

export function registerUnset(config: Parent, ctx: Context): void {
  define(config).action(async (key) => {
    const { runUnset } = await import('./unset.run.js');
    await runUnset(ctx, key);
  });
}
