// `aip models base`: its help and examples; the code that runs is base.run.ts.

import type { Context } from '../../context.js';
import { examples } from '../examples.js';
import type { Parent } from '../types.js';

function define(models: Parent) {
  const base = models.command('base').description('the base models the Training API can train');
  return examples(base, ['aip models base']);
}

export function registerBase(models: Parent, ctx: Context): void {
  define(models).action(async () => {
    const { runBase } = await import('./base.run.js');
    await runBase(ctx);
  });
}
