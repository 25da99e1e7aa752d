// `aip history on` and `aip history off`: their flags, help and examples; the code is switch.run.ts.

import type { Context } from '../../context.js';
import { examples } from '../examples.js';
import type { OptionsOf, Parent } from '../types.js';

function defineOn(history: Parent) {
  const on = history
    .command('on')
    .description('keep a history of the commands that talk to the platform (AIP_HISTORY overrides it)')
    .option('--bodies', 'keep chat prompts and replies and sampled trajectories too (history.bodies)')
    .option('--no-bodies', 'keep no bodies');
  return examples(on, ['aip history on', 'aip history on --bodies', 'aip history on --no-bodies']);
}

function defineOff(history: Parent) {
  const off = history
    .command('off')
    .description('keep no history from now on (what is kept stays: aip history prune removes it)');
  return examples(off, ['aip history off']);
}

export type OnOptions = OptionsOf<typeof defineOn>;

export function registerSwitch(history: Parent, ctx: Context): void {
  defineOn(history).action(async (options) => {
    const { runOn } = await import('./switch.run.js');
    await runOn(ctx, options);
  });
  defineOff(history).action(async () => {
    const { runOff } = await import('./switch.run.js');
    await runOff(ctx);
  });
}
