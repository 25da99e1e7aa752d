// `aip emulator reset`: its flags, help and examples; the code that runs is reset.run.ts.

import { Option } from '@commander-js/extra-typings';
import type { Context } from '../../context.js';
import { examples } from '../examples.js';
import type { OptionsOf, Parent } from '../types.js';
import { valueKind } from '../value-kinds.js';

function define(emulator: Parent) {
  const reset = emulator
    .command('reset')
    .description(
      "empty the emulator's state: models, checkpoints, jobs, logs, spans and the request record (asks first)",
    )
    .addOption(
      valueKind(
        'directory',
        new Option(
          '--state-dir <dir>',
          "the state directory, when no emulator runs on it (default: aip's data directory)",
        ),
      ),
    );
  return examples(reset, ['aip emulator reset', 'aip emulator reset --yes   # in a script']);
}

export type ResetOptions = OptionsOf<typeof define>;

export function registerReset(emulator: Parent, ctx: Context): void {
  define(emulator).action(async (options) => {
    const { runReset } = await import('./reset.run.js');
    await runReset(ctx, options);
  });
}
