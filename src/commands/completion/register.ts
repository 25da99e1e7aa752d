import { Argument, type Command } from 'commander';
import type { Context } from '../../context.js';
import { examples } from '../examples.js';

export const SHELLS = ['bash', 'zsh', 'fish'] as const;

export function registerCompletion(program: Command, ctx: Context): void {
  const completion = program
    .command('completion')
    .description('print a shell completion script (it never edits your shell start-up files)')
    .addArgument(new Argument('<shell>', 'the shell').choices(SHELLS))
    .action(async (shell: (typeof SHELLS)[number]) => {
      const { completionScript } = await import('./scripts.js');
      ctx.io.write(completionScript(program, shell));
    });
  examples(completion, [
    'source <(aip completion bash)            # add to ~/.bashrc to keep it',
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a zsh expression shown to the user
    'aip completion zsh > "${fpath[1]}/_aip"',
    'aip completion fish > ~/.config/fish/completions/aip.fish',
  ]);
}
