// `aip models forget`: its arguments, flags, help and examples; the code that runs is forget.run.ts.

import { Argument } from '@commander-js/extra-typings';
import type { Context } from '../../context.js';
import { examples } from '../examples.js';
import { forgetOptions } from '../forget.js';
import type { OptionsOf, Parent } from '../types.js';
import { valueKind } from '../value-kinds.js';

function define(models: Parent) {
  const forget = models
    .command('forget')
    .description(
      'forget remembered names on this machine, for this base URL (the server is not asked to delete anything)',
    )
    .addArgument(
      valueKind(
        'model',
        new Argument('[model...]', 'a name created from this machine (team/project/name or name), or its id'),
      ),
    );
  return examples(forgetOptions(forget, 'model'), [
    'aip models forget agent-001',
    'aip --profile local models forget --stale',
    'aip models forget --all --yes',
  ]);
}

export type ForgetOptions = OptionsOf<typeof define>;

export function registerForget(models: Parent, ctx: Context): void {
  define(models).action(async (refs, options) => {
    const { runModelsForget } = await import('./forget.run.js');
    await runModelsForget(ctx, refs, options);
  });
}
