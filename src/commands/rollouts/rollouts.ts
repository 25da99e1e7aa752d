// `aip rollouts`: its flags, help and examples; the code that runs is rollouts.run.ts.

import { Option } from '@commander-js/extra-typings';
import type { Context } from '../../context.js';
import { examples } from '../examples.js';
import { collect } from '../parsers.js';
import { samplingFlags } from '../sampling-flags.js';
import type { OptionsOf, Parent } from '../types.js';
import { valueKind } from '../value-kinds.js';
import { withWaitingOptions } from '../verbs.js';

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
            'the checkpoint: name[:stepN] of a model created here, or wandb-artifact:///team/project/name[:stepN]',
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
    .option('--force', 'start the groups file again if it exists');
  return examples(withOptions, [
    'aip rollouts --model agent-001 --tasks tasks.jsonl --reward exact -K 8 -o groups.jsonl',
    'aip rollouts --model agent-001:step3 --tasks tasks.jsonl --reward-cmd "python3 score.py" -o groups.jsonl',
    'aip rollouts --model agent-001 --tasks tasks.jsonl --reward contains -o groups.jsonl --resume   # after a stop',
    'aip rollouts --model agent-001 --tasks tasks.jsonl --reward exact -o temperature=0.7 -o top_p=0.9 -o g.jsonl',
  ]);
}

// Its options are built when it runs (or for what walks the whole tree): not for every start-up.
const define = withWaitingOptions(command, withFlags);

export type RolloutsOptions = OptionsOf<typeof define>;

export function registerRollouts(program: Parent, ctx: Context): void {
  define(program).action(async (given) => {
    const { runRolloutsCommand } = await import('./rollouts.run.js');
    await runRolloutsCommand(ctx, given);
  });
}
