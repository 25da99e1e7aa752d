// `aip rollouts merge`: its arguments, flags, help and examples; the code that runs is merge.run.ts.

import { Argument, Option } from '@commander-js/extra-typings';
import type { Context } from '../../context.js';
import { examples } from '../examples.js';
import type { ArgumentsOf, OptionsOf, Parent } from '../types.js';
import { valueKind } from '../value-kinds.js';

const DESCRIPTION =
  "join the groups files of `aip rollouts --shard I/N` runs into the one file an unsharded run with the same seed writes (its groups in the tasks file's order)";

function define(rollouts: Parent) {
  const merge = rollouts
    .command('merge')
    .description(DESCRIPTION)
    .addArgument(
      valueKind('file', new Argument('<shard-file...>', 'the groups files of the shards, in any order')),
    )
    .addOption(
      valueKind(
        'file',
        new Option(
          '--tasks <file>',
          'the tasks file the shards sampled: every task must be in exactly one shard file, and the groups are written in its order',
        ),
      ).makeOptionMandatory(),
    )
    .addOption(
      valueKind(
        'file',
        new Option('-o, --output <file>', 'the merged groups file (written whole, atomically)'),
      ).makeOptionMandatory(),
    )
    .option('--force', 'replace the output file if it exists');
  // Its "Global Options" are the root's alone: rollouts' own flags are not merge's, and are not taken
  // after its name (each command parses only its own words: program.ts).
  merge.configureHelp({
    ...merge.configureHelp(),
    visibleGlobalOptions: (command) => {
      let root = command;
      while (root.parent) root = root.parent;
      return root.options.filter((o) => !o.hidden && o.long !== '--version');
    },
  });
  merge.addHelpText(
    'after',
    `
The shard files must be groups files of aip rollouts sampled alike: the same
--seed, model, request parameters, reward and group size (each group's metadata
says how it was sampled). A task in two files, a task in none, or a group of a
task not in --tasks is refused, and nothing is written. The merged file holds
the groups an unsharded run with that seed writes, in the tasks file's order (an
unsharded run writes them as they complete, in an order that depends on timing:
compare the two in this order).`,
  );
  return examples(merge, [
    'aip rollouts merge shard-*.jsonl --tasks tasks.jsonl -o groups.jsonl',
    'aip rollouts merge shards/*/shard.jsonl --tasks tasks.jsonl -o groups.jsonl && aip jobs create rl --model agent-001 --file groups.jsonl',
  ]);
}

export type MergeOptions = OptionsOf<typeof define>;
export type MergeArguments = ArgumentsOf<typeof define>;

export function registerMerge(rollouts: Parent, ctx: Context): void {
  define(rollouts).action(async (files, options) => {
    const { runMerge } = await import('./merge.run.js');
    await runMerge(ctx, files, options);
  });
}
