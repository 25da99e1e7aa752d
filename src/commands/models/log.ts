// `aip models log`: its argument, flags, help and examples; the code that runs is log.run.ts.

import { Argument, Option } from '@commander-js/extra-typings';
import type { Context } from '../../context.js';
import { examples } from '../examples.js';
import type { OptionsOf, Parent } from '../types.js';
import { valueKind } from '../value-kinds.js';

function define(models: Parent) {
  const log = models
    .command('log')
    .description(
      'log trajectory groups to the model (checked offline first; nothing is sent if one is invalid)',
    )
    .addArgument(valueKind('model', new Argument('<model>', 'model id, or a name created from this machine')))
    .requiredOption('--split <name>', 'the split to log to, e.g. train or val')
    .addOption(
      valueKind(
        'file',
        new Option(
          '--file <path>',
          'trajectory groups: a JSON array, or JSON Lines (one group per line); - for stdin',
        ),
      ).makeOptionMandatory(),
    );
  return examples(log, [
    'aip models log agent-001 --split val --file groups.jsonl',
    'generate-groups | aip models log agent-001 --split train --file -',
  ]);
}

export type LogOptions = OptionsOf<typeof define>;

export function registerLog(models: Parent, ctx: Context): void {
  define(models).action(async (model, options) => {
    const { runLog } = await import('./log.run.js');
    await runLog(ctx, model, options);
  });
}
