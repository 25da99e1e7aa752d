// `aip rollouts`: its flags, help and examples; the code that runs is rollouts.run.ts.

import { Option } from '@commander-js/extra-typings';
import type { Context } from '../../context.js';
import { budgetFlags } from '../budget-flags.js';
import { examples } from '../examples.js';
import { collect, parseShard } from '../parsers.js';
import { samplingFlags } from '../sampling-flags.js';
import type { OptionsOf, Parent } from '../types.js';
import { valueKind } from '../value-kinds.js';
import { withWaitingOptions } from '../verbs.js';
import { registerMerge } from './merge.js';

const DESCRIPTION =
  'sample K replies per task from a checkpoint on the Training API, score each, and write trajectory groups for jobs create rl';

const command = (program: Parent) => program.command('rollouts').description(DESCRIPTION);

/** Its flags, help and examples, on the command as registered. */
function withFlags(rollouts: ReturnType<typeof command>) {
  const withOptions = samplingFlags(
    rollouts
      .addOption(
        valueKind(
          'model',
          new Option(
            '--model <model>',
            'the checkpoint: name[:stepN|:best[METRIC]|:latest] of a model created here, or wandb-artifact:///team/project/name[:stepN]',
          ),
        ).makeOptionMandatory(),
      )
      // -o is both, as the flag's users expect: an output file, and a request parameter (key=value).
      .option(
        '-o <file|key=value>',
        'the groups file (default: stdout), or a request parameter key=value (repeatable)',
        collect,
      )
      .addOption(
        valueKind(
          'file',
          new Option('--output <file>', 'the groups file, written a group at a time as each is complete'),
        ),
      ),
  )
    .option('--resume', 'continue a groups file: its tasks are not sampled again')
    .option('--force', 'start the groups file again if it exists')
    .option(
      '--shard <i/n>',
      'sample only shard i of n (numbered from 1): the tasks whose id hashes to it, so that n machines split the tasks; needs --seed; join the files with `aip rollouts merge`',
      parseShard,
    );
  return examples(budgetFlags(withOptions), [
    'aip rollouts --model agent-001 --tasks tasks.jsonl --reward exact -K 8 -o groups.jsonl',
    'aip rollouts --model agent-001:step3 --tasks tasks.jsonl --reward-cmd "python3 score.py" -o groups.jsonl',
    'aip rollouts --model agent-001 --tasks tasks.jsonl --reward contains -o groups.jsonl --resume   # after a stop',
    'aip rollouts --model agent-001 --tasks tasks.jsonl --reward exact -o temperature=0.7 -o top_p=0.9 -o g.jsonl',
    'aip rollouts --model agent-001 --tasks tasks.jsonl --reward exact --seed 7 --shard 2/4 -o shard-2.jsonl   # one of 4 machines',
    'aip rollouts --model agent-001 --tasks tasks.jsonl --reward judge:openai/gpt-oss-20b -o g.jsonl --max-cost 2   # stops at $2',
  ]);
}

// Its options are built when it runs (or for what walks the whole tree): not for every start-up.
const define = withWaitingOptions(command, withFlags);

export type RolloutsOptions = OptionsOf<typeof define>;

/**
 * `aip rollouts` runs, and has a verb: `merge`. Added with the options, when rollouts runs (a noun's
 * verbs wait the same way, but one command waits for one thing: verbs.ts keeps one per command).
 * commander checks the mandatory options of every command on the way to the one that runs: rollouts'
 * --model and --tasks are not merge's, so they stop being mandatory on the way to it.
 */
function withMerge(ctx: Context) {
  return withWaitingOptions(command, (rollouts) => {
    const defined = withFlags(rollouts);
    registerMerge(defined, ctx);
    defined.hook('preSubcommand', (parent) => {
      for (const option of parent.options) option.mandatory = false;
    });
    return defined;
  });
}

export function registerRollouts(program: Parent, ctx: Context): void {
  withMerge(ctx)(program).action(async (given) => {
    const { runRolloutsCommand } = await import('./rollouts.run.js');
    await runRolloutsCommand(ctx, given);
  });
}
