import type { Command } from 'commander';
import type { Context } from '../../context.js';
import { examples } from '../examples.js';

export function registerHelp(program: Command, ctx: Context): void {
  const help = program
    .command('help')
    .description('show help for a command, or a topic: exit-codes, environment')
    .argument('[topic...]', 'a command (e.g. "auth login") or a topic')
    .action(async (topic: string[]) => {
      const { runHelp } = await import('./topics.js');
      await runHelp(ctx, program, topic);
    });
  examples(help, ['aip help exit-codes', 'aip help environment', 'aip help auth login']);
}
