// `aip system-check`: its help and examples; the code that runs is system-check.run.ts.

import type { Context } from '../../context.js';
import { examples } from '../examples.js';
import type { Parent } from '../types.js';

function define(program: Parent) {
  const systemCheck = program
    .command('system-check')
    .description(
      "show the Training API's component checks: api, database, cpu_queue, gpu_queue (exit 1 when one fails)",
    );
  return examples(systemCheck, ['aip system-check', 'aip system-check --json | jq .database']);
}

export function registerSystemCheck(program: Parent, ctx: Context): void {
  define(program).action(async () => {
    const { runSystemCheck } = await import('./system-check.run.js');
    await runSystemCheck(ctx);
  });
}
