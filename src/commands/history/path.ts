// `aip history path`: its help and examples; the code that runs is path.run.ts.

import type { Context } from '../../context.js';
import { examples } from '../examples.js';
import type { Parent } from '../types.js';

function define(history: Parent) {
  const path = history
    .command('path')
    .description("print the path of the history database (in aip's data directory: AIP_DATA_DIR moves it)");
  return examples(path, ['aip history path', 'sqlite3 "$(aip history path)" .tables']);
}

export function registerPath(history: Parent, ctx: Context): void {
  define(history).action(async () => {
    const { runPath } = await import('./path.run.js');
    await runPath(ctx);
  });
}
