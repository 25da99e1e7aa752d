// `aip train rl`: its flags, help and examples; the code that runs is rl.run.ts.

import type { Context } from '../../context.js';
import { examples } from '../examples.js';
import { collect, parseInterval, parseWhole } from '../parsers.js';
import { rlConfigFlags } from '../rl-config-flags.js';
import { samplingSettingFlags, TASKS_HELP } from '../sampling-flags.js';
import type { OptionsOf, Parent } from '../types.js';
import { parseStall, STALL_FLAG, STALL_HELP } from '../wait-flags.js';

function define(train: Parent) {
  const rl = rlConfigFlags(
    samplingSettingFlags(
      train
        .command('rl')
        .description(
          'the RL loop: rollouts on the latest checkpoint, an RL job on them, its wait, again; kept in a run directory, resumable',
        )
        .option('--model <model>', 'the model to train: a name created here, or its id')
        .option('--tasks <file>', TASKS_HELP)
        .option('--steps <n>', 'iterations: rollouts, job, wait', parseWhole('--steps', 1, 10_000)),
    )
      .option('-o <key=value>', 'a request parameter key=value (repeatable; as --option)', collect)
      .option('--log-split <split>', "also log each iteration's groups to this split (as models log)"),
  )
    .option('--run-dir <dir>', 'where the run is kept (default ./aip-train-<model>-<UTC time>)')
    .option(
      '--resume <dir>',
      'carry on the run kept in this directory (its plan; --steps may raise the iterations)',
    )
    .option('--interval <seconds>', 'seconds between polls while waiting (default 1)', parseInterval)
    .option(STALL_FLAG, STALL_HELP, parseStall);
  return examples(rl, [
    'aip train rl --model agent-001 --tasks tasks.jsonl --reward exact --steps 5',
    'aip train rl --model agent-001 --tasks tasks.jsonl --reward-cmd "python3 score.py" -K 8 --steps 10 --learning-rate 1e-5',
    'aip train rl --model agent-001 --tasks tasks.jsonl --reward contains --steps 3 --log-split train --run-dir runs/first',
    'aip train rl --resume runs/first   # after Ctrl-C or a failure',
  ]);
}

export type TrainRlOptions = OptionsOf<typeof define>;

export function registerRl(train: Parent, ctx: Context): void {
  define(train).action(async (options) => {
    const { runTrainRl } = await import('./rl.run.js');
    await runTrainRl(ctx, options);
  });
}
