import type { Command } from 'commander';
import type { Context } from '../../context.js';
import { examples } from '../examples.js';

export function registerAuth(program: Command, ctx: Context): void {
  const auth = program.command('auth').description('store, check, print or remove the API key of a profile');
  examples(auth, ['aip auth login', 'aip auth status']);

  const login = auth
    .command('login')
    .description('store an API key for the profile, after checking it against the inference model list')
    .option('--with-key', 'read the key from stdin instead of prompting (never pass a key as an argument)')
    .action(async (opts: { withKey?: boolean }) => {
      const { runLogin } = await import('./login.js');
      await runLogin(ctx, opts);
    });
  examples(login, [
    'aip auth login',
    'aip auth login --with-key < key.txt',
    'printenv WANDB_API_KEY | aip --profile work auth login --with-key',
  ]);

  const status = auth
    .command('status')
    .description(
      'show the key in use (masked) and its source, the project, the URLs, and whether each API accepts the key',
    )
    .action(async () => {
      const { runStatus } = await import('./status.js');
      await runStatus(ctx);
    });
  examples(status, ['aip auth status', 'aip --profile local auth status --json']);

  const logout = auth
    .command('logout')
    .description("remove the profile's stored key")
    .action(async () => {
      const { runLogout } = await import('./logout.js');
      await runLogout(ctx);
    });
  examples(logout, ['aip auth logout', 'aip --profile work auth logout']);

  const token = auth
    .command('token')
    .description('print the key in use, for other tools: $(aip auth token)')
    .action(async () => {
      const { runToken } = await import('./token.js');
      await runToken(ctx);
    });
  examples(token, [
    'curl -H "Authorization: Bearer $(aip auth token)" https://api.inference.wandb.ai/v1/models',
  ]);
}
