import type { Context } from '../../context.js';
import { examples } from '../examples.js';
import type { Parent } from '../types.js';
import { verbs } from '../verbs.js';
import { registerGet } from './get.js';
import { registerList } from './list.js';
import { registerPath } from './path.js';
import { registerProfiles } from './profiles.js';
import { registerSet } from './set.js';
import { registerUnset } from './unset.js';

export function registerConfig(program: Parent, ctx: Context): void {
  const config = examples(
    program
      .command('config')
      .description('read and write non-secret settings of a profile (the key is managed by `aip auth`)'),
    ['aip config list --sources', 'aip config set project my-team/my-project'],
  );
  verbs(config, () => {
    registerGet(config, ctx);
    registerSet(config, ctx);
    registerUnset(config, ctx);
    registerList(config, ctx);
    registerPath(config, ctx);
    registerProfiles(config, ctx);
  });
}
