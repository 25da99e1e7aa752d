// The flags `aip models forget` and `aip jobs forget` share: one definition, for either noun.

import type { Command, OptionValues } from '@commander-js/extra-typings';

export function forgetOptions<
  Args extends unknown[],
  Opts extends OptionValues,
  Globals extends OptionValues,
>(command: Command<Args, Opts, Globals>, noun: 'model' | 'job') {
  return command
    .option(
      '--all',
      `forget every ${noun} remembered for this base URL (asks first on a terminal; --yes in scripts)`,
    )
    .option('--stale', `ask the server about each remembered ${noun} and forget those it no longer knows`);
}
