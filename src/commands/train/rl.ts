// `aip train rl`: its flags, help and examples; the code that runs is rl.run.ts.

import { Option } from '@commander-js/extra-typings';
import type { Context } from '../../context.js';
import { budgetFlags } from '../budget-flags.js';
import { examples } from '../examples.js';
import { collect, parseInterval, parseWhole } from '../parsers.js';
import { rlConfigFlags } from '../rl-config-flags.js';
import { samplingSettingFlags, TASKS_HELP } from '../sampling-flags.js';
import type { OptionsOf, Parent } from '../types.js';
import { valueKind } from '../value-kinds.js';
import { parseStall, STALL_FLAG, STALL_HELP } from '../wait-flags.js';

function define(train: Parent) {
  const rl = rlConfigFlags(
    samplingSettingFlags(
      train
        .command('rl')
        .description(
          'the RL loop: rollouts on the latest checkpoint, an RL job on them, its wait, again; kept in a run directory, resumable',
        )
        .addOption(
          valueKind(
            'model',
            new Option('--model <model>', 'the model to train: a name created here, or its id'),
          ),
        )
        .addOption(valueKind('file', new Option('--tasks <file>', TASKS_HELP)))
        .option('--steps <n>', 'iterations: rollouts, job, wait', parseWhole('--steps', 1, 10_000)),
    )
      .option('-o <key=value>', 'a request parameter key=value (repeatable; as --option)', collect)
      .option('--log-split <split>', "also log each iteration's groups to this split (as models log)"),
  )
    .addOption(
      valueKind(
        'directory',
        new Option('--run-dir <dir>', 'where the run is kept (default ./aip-train-<model>-<UTC time>)'),
      ),
    )
    .addOption(
      valueKind(
        'directory',
        new Option(
          '--resume <dir>',
          'carry on the run kept in this directory (its plan; --steps may raise the iterations)',
        ),
      ),
    )
    .option('--interval <seconds>', 'seconds between polls while waiting (default 1)', parseInterval)
    .option(STALL_FLAG, STALL_HELP, parseStall);
  return examples(budgetFlags(rl), [
    'aip train rl --model agent-001 --tasks tasks.jsonl --reward exact --steps 5',
    'aip train rl --model agent-001 --tasks tasks.jsonl --reward-cmd "python3 score.py" -K 8 --steps 10 --learning-rate 1e-5',
    'aip train rl --model agent-001 --tasks tasks.jsonl --reward contains --steps 3 --log-split train --run-dir runs/first',
    'aip train rl --resume runs/first   # after Ctrl-C or a failure',
  ]);
}

export type TrainRlOptions = OptionsOf<typeof define>;

/**
 * What a resumed run may be given: how far (--steps), how fast and whether traced, how it waits. Its
 * other flags make the plan, which --resume takes from the run directory instead: a flag added to the
 * definition is part of the plan unless it is named here.
 */
const NOT_THE_PLAN = [
  'resume',
  'steps',
  'concurrency',
  'rewardWorkers',
  'trace',
  'interval',
  'stall',
  // A budget is the invocation's, not the run's (budget/budget.ts): each --resume may give its own.
  'maxCost',
  'maxTotalTokens',
] as const satisfies ReadonlyArray<keyof TrainRlOptions>;

/** train rl's flags as --resume sees them, read from the definition (rl.run.ts refuses the plan's). */
export interface ResumeFlags {
  /** Each flag of the plan: its key in the options, and the flag as typed. */
  plan: ReadonlyArray<readonly [keyof TrainRlOptions, string]>;
  /** The flags that may be given with --resume. */
  allowed: readonly string[];
}

function resumeFlags(own: readonly Option[]): ResumeFlags {
  const notThePlan = (o: Option) => (NOT_THE_PLAN as readonly string[]).includes(o.attributeName());
  const flag = (o: Option) => (o.long ?? o.short)!;
  return {
    // Its own options' attribute names are the keys of its options, as extra-typings infers them.
    plan: own.filter((o) => !notThePlan(o)).map((o) => [o.attributeName() as keyof TrainRlOptions, flag(o)]),
    allowed: own.filter((o) => notThePlan(o) && o.attributeName() !== 'resume').map(flag),
  };
}

export function registerRl(train: Parent, ctx: Context): void {
  const rl = define(train);
  // Read now: its own flags only, as the global ones are added to it on the way to running it.
  const flags = resumeFlags(rl.options);
  rl.action(async (options) => {
    const { runTrainRl } = await import('./rl.run.js');
    await runTrainRl(ctx, options, flags);
  });
}
