// `aip config profiles`: its help and examples; the code that runs is profiles.run.ts.

import type { Context } from '../../context.js';
import { examples } from '../examples.js';
import type { Parent } from '../types.js';

function define(config: Parent) {
  const profiles = config
    .command('profiles')
    .description('list the profiles: built in (default, local, forge) and stored');
  return examples(profiles, ['aip config profiles', 'AIP_PROFILE=local aip health']);
}

export function registerProfiles(config: Parent, ctx: Context): void {
  define(config).action(async () => {
    const { runProfiles } = await import('./profiles.run.js');
    await runProfiles(ctx);
  });
}
