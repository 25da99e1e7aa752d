// `aip config path`: its help and examples; the code that runs is path.run.ts.

import type { Context } from '../../context.js';
import { examples } from '../examples.js';
import type { Parent } from '../types.js';

function define(config: Parent) {
  const path = config
    .command('path')
    .description('print the path of the config file (AIP_CONFIG_DIR moves it)');
  return examples(path, ['aip config path', 'ls -l "$(aip config path)"']);
}

export function registerPath(config: Parent, ctx: Context): void {
  define(config).action(async () => {
    const { runPath } = await import('./path.run.js');
    await runPath(ctx);
  });
}
