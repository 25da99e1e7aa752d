import { Argument, type Command } from 'commander';
import type { Context } from '../../context.js';
import { SETTING_KEYS } from '../../settings/keys.js';
import { examples } from '../examples.js';

const keyArgument = () => new Argument('<key>', 'setting name').choices(SETTING_KEYS);

export function registerConfig(program: Command, ctx: Context): void {
  const config = program
    .command('config')
    .description('read and write non-secret settings of a profile (the key is managed by `aip auth`)');
  examples(config, ['aip config list --sources', 'aip config set project my-team/my-project']);

  const get = config
    .command('get')
    .description('print the value in effect for a setting')
    .addArgument(keyArgument())
    .action(async (key: string) => {
      const { runGet } = await import('./get.js');
      await runGet(ctx, key);
    });
  examples(get, ['aip config get project', 'aip --profile local config get base-url']);

  const set = config
    .command('set')
    .description(`store a setting in the profile: ${SETTING_KEYS.join(', ')}`)
    .addArgument(keyArgument())
    .argument('<value>', 'the value to store')
    .action(async (key: string, value: string) => {
      const { runSet } = await import('./set.js');
      await runSet(ctx, key, value);
    });
  examples(set, [
    'aip config set project my-team/my-project',
    'aip --profile staging config set base-url https://staging.example.com/v1',
    'aip config set output json',
  ]);

  const unset = config
    .command('unset')
    .description('remove a setting from the profile (the next source in line applies again)')
    .addArgument(keyArgument())
    .action(async (key: string) => {
      const { runUnset } = await import('./set.js');
      await runUnset(ctx, key);
    });
  examples(unset, ['aip config unset default-model']);

  const list = config
    .command('list')
    .description('show every setting in effect; --sources says where each comes from')
    .option('--sources', 'add the source of each value: flag, env, config, built-in or default')
    .action(async (opts: { sources?: boolean }) => {
      const { runList } = await import('./list.js');
      await runList(ctx, opts);
    });
  examples(list, ['aip config list', 'aip config list --sources', 'aip --profile local config list --json']);

  const path = config
    .command('path')
    .description('print the path of the config file (AIP_CONFIG_DIR moves it)')
    .action(async () => {
      const { runPath } = await import('./profiles.js');
      await runPath(ctx);
    });
  examples(path, ['aip config path', 'ls -l "$(aip config path)"']);

  const profiles = config
    .command('profiles')
    .description('list the profiles: built in (default, local, forge) and stored')
    .action(async () => {
      const { runProfiles } = await import('./profiles.js');
      await runProfiles(ctx);
    });
  examples(profiles, ['aip config profiles', 'AIP_PROFILE=local aip health']);
}
