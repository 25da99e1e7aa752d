// `aip config list`: its flags, help and examples; the code that runs is list.run.ts.

import type { Context } from '../../context.js';
import { examples } from '../examples.js';
import type { OptionsOf, Parent } from '../types.js';

function define(config: Parent) {
  const list = config
    .command('list')
    .description('show every setting in effect; --sources says where each comes from')
    .option('--sources', 'add the source of each value: flag, env, config, built-in or default');
  return examples(list, [
    'aip config list',
    'aip config list --sources',
    'aip --profile local config list --json',
  ]);
}

export type ListOptions = OptionsOf<typeof define>;

export function registerList(config: Parent, ctx: Context): void {
  define(config).action(async (options) => {
    const { runList } = await import('./list.run.js');
    await runList(ctx, options);
  });
}
