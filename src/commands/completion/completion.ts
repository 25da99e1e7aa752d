// `aip completion`: its argument, help and examples; the code that runs is completion.run.ts.

import { Argument } from '@commander-js/extra-typings';
import type { Context } from '../../context.js';
import { examples } from '../examples.js';
import type { ArgumentsOf, Parent } from '../types.js';
import { registerComplete } from './complete.js';

function define(program: Parent) {
  const completion = program
    .command('completion')
    .description('print a shell completion script (it never edits your shell start-up files)')
    .addArgument(new Argument('<shell>', 'the shell').choices(['bash', 'zsh', 'fish']));
  return examples(completion, [
    'source <(aip completion bash)            # add to ~/.bashrc to keep it',
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a zsh expression shown to the user
    'aip completion zsh > "${fpath[1]}/_aip"',
    'aip completion fish > ~/.config/fish/completions/aip.fish',
  ]);
}

/** The shells there is a script for, as the argument's choices make them. */
export type Shell = ArgumentsOf<typeof define>[0];

export function registerCompletion(program: Parent, ctx: Context): void {
  define(program).action(async (shell) => {
    const { runCompletion } = await import('./completion.run.js');
    await runCompletion(ctx, shell);
  });
  registerComplete(program, ctx);
}
