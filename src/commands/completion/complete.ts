// `aip __complete`, hidden: the completion scripts call it on every TAB (complete.run.ts says what it
// answers). It walks the whole tree, so it asks for it (commands/verbs.ts).

import type { Context } from '../../context.js';
import { examples } from '../examples.js';
import type { Parent } from '../types.js';
import { treeFor } from '../verbs.js';

export function registerComplete(program: Parent, ctx: Context): void {
  const complete = program
    .command('__complete', { hidden: true })
    .description(
      'the completions of a command line, for the completion scripts (after --: the words after aip)',
    )
    .argument('[words...]', 'the words typed after aip, the last one the word being completed');
  examples(complete, ["aip __complete -- jobs get ''"]).action(async (words) => {
    try {
      const { runComplete } = await import('./complete.run.js');
      await runComplete(ctx, treeFor(program, words), words);
    } catch {
      // Never an error on a TAB: nothing is offered instead.
    }
  });
}
