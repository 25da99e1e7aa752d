// `aip config set`: its arguments, help and examples; the code that runs is set.run.ts.

import type { Context } from '../../context.js';
import { SETTING_KEYS } from '../../settings/keys.js';
import { examples } from '../examples.js';
import type { Parent } from '../types.js';
import { keyArgument } from './arguments.js';

function define(config: Parent) {
  const set = config
    .command('set')
    .description(`store a setting in the profile: ${SETTING_KEYS.join(', ')}`)
    .addArgument(keyArgument())
    .argument('<value>', 'the value to store');
  return examples(set, [
    'aip config set project my-team/my-project',
    'aip --profile staging config set base-url https://staging.example.com/v1',
    'aip config set output json',
  ]);
}

export function registerSet(config: Parent, ctx: Context): void {
  define(config).action(async (key, value) => {
    const { runSet } = await import('./set.run.js');
    await runSet(ctx, key, value);
  });
}
