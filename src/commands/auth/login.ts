// `aip auth login`: its flags, help and examples; the code that runs is login.run.ts.

import type { Context } from '../../context.js';
import { examples } from '../examples.js';
import type { OptionsOf, Parent } from '../types.js';

function define(auth: Parent) {
  const login = auth
    .command('login')
    .description('store an API key for the profile, after checking it against the inference model list')
    .option('--with-key', 'read the key from stdin instead of prompting (never pass a key as an argument)')
    .option(
      '--insecure-storage',
      'store the key in plain text in the config file (mode 0600), not in the system keychain',
    );
  return examples(login, [
    'aip auth login',
    'aip auth login --with-key < key.txt',
    'printenv WANDB_API_KEY | aip --profile work auth login --with-key',
    'aip auth login --with-key --insecure-storage < key.txt',
  ]);
}

export type LoginOptions = OptionsOf<typeof define>;

export function registerLogin(auth: Parent, ctx: Context): void {
  define(auth).action(async (options) => {
    const { runLogin } = await import('./login.run.js');
    await runLogin(ctx, options);
  });
}
