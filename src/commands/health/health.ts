// `aip health`: its help and examples; the code that runs is health.run.ts.

import type { Context } from '../../context.js';
import { examples } from '../examples.js';
import type { Parent } from '../types.js';

function define(program: Parent) {
  const health = program
    .command('health')
    .description('check that the training, inference and trace endpoints answer (no key needed)');
  return examples(health, ['aip health', 'aip health --json', 'aip --profile local health']);
}

export function registerHealth(program: Parent, ctx: Context): void {
  define(program).action(async () => {
    const { runHealth } = await import('./health.run.js');
    await runHealth(ctx);
  });
}
