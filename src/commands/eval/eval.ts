// `aip eval`: its flags, help and examples; the code that runs is eval.run.ts.

import { Option } from '@commander-js/extra-typings';
import type { Context } from '../../context.js';
import { DEFAULT_EVAL_GROUP_SIZE, DEFAULT_EVAL_SEED, DEFAULT_PASS_THRESHOLD } from '../../eval/defaults.js';
import { budgetFlags } from '../budget-flags.js';
import { examples } from '../examples.js';
import { collect, parseNumber, parseShard, parseWhole } from '../parsers.js';
import { samplingFlags } from '../sampling-flags.js';
import type { OptionsOf, Parent } from '../types.js';
import { valueKind } from '../value-kinds.js';
import { withWaitingOptions } from '../verbs.js';

const DESCRIPTION =
  'score checkpoints on a task set, sampled alike (the same seed for each): mean and spread of reward, pass rate, and which tasks changed';

const newCommand = (program: Parent) => program.command('eval').description(DESCRIPTION);

/** Its flags, help and examples, on the command as registered. */
function withFlags(evaluation: ReturnType<typeof newCommand>) {
  const command = samplingFlags(
    evaluation
      .addOption(
        valueKind(
          'model',
          new Option(
            '--model <model>',
            'a checkpoint to evaluate: name[:stepN] of a model created here, name:best[METRIC] (highest reward, or METRIC; lowest for a loss), name:latest, name:step* (every checkpoint), or wandb-artifact:///team/project/name[:stepN] (repeatable; compared in the order given)',
          ),
        )
          .argParser(collect)
          .makeOptionMandatory(),
      )
      .option(
        '--every <n>',
        'of a range (--model name:step*): only the steps that are a multiple of n',
        parseWhole('--every', 1, 1_000_000),
      )
      .option(
        '--last <k>',
        'of a range (--model name:step*): only the k highest steps (after --every)',
        parseWhole('--last', 1, 1_000_000),
      )
      .option(
        '--steps <list>',
        'these steps of the one --model given, e.g. 0,8,16 or 0-16 (each must have a checkpoint)',
      )
      .option('-o <key=value>', 'a request parameter, value as JSON when it parses (repeatable)', collect),
    DEFAULT_EVAL_GROUP_SIZE,
    String(DEFAULT_EVAL_SEED),
  )
    .option(
      '--pass-threshold <x>',
      `a sample passes when its reward is at least x (default ${DEFAULT_PASS_THRESHOLD})`,
      parseNumber('--pass-threshold'),
    )
    .option(
      '--diff',
      'per task, the mean reward under each checkpoint: the tasks that changed, largest change first',
    )
    .option(
      '--fail-under <x>',
      "exit 1 when the last checkpoint's mean reward is under x (for CI)",
      parseNumber('--fail-under'),
    )
    .option(
      '--plot',
      'draw the mean reward and the pass rate over the steps of the checkpoints, at the terminal',
    )
    .addOption(
      valueKind(
        'file',
        new Option('--save <file>', 'write the results as --json prints them to a file, for aip compare'),
      ),
    )
    .addOption(
      valueKind(
        'file',
        new Option(
          '--report <file>',
          'write a report: FILE.html (a self-contained page) or FILE.md (for a pull request or a step summary), with the table, the charts, the tasks that changed and their samples',
        ),
      ),
    )
    .option(
      '--shard <i/n>',
      "evaluate only shard i of n (numbered from 1): the tasks whose id hashes to it, split as rollouts --shard splits them; the report is that shard's tasks'",
      parseShard,
    );
  return examples(budgetFlags(command), [
    'aip eval --model agent-001:step2 --model agent-001:step8 --tasks tasks.jsonl --reward exact',
    'aip eval --model agent-001:step2 --model agent-001:step8 --tasks tasks.jsonl --reward exact --diff',
    'aip eval --model agent-001 --tasks tasks.jsonl --reward-cmd "python3 score.py" -K 4 --fail-under 0.8',
    'aip eval --model agent-001:step5 --tasks tasks.jsonl --reward contains --json | jq .checkpoints[0].mean',
    "aip eval --model 'agent-001:step*' --every 10 --tasks tasks.jsonl --reward exact   # every 10th step",
    'aip eval --model agent-001 --steps 0,8,16 --tasks tasks.jsonl --reward exact',
    "aip eval --model 'agent-001:best[reward]' --model agent-001:latest --tasks tasks.jsonl --reward exact",
    'aip eval --model agent-001 --tasks tasks.jsonl --reward exact --shard 1/4 --json > eval-1.json   # one of 4 machines',
    "aip eval --model 'agent-001:step*' --every 4 --tasks tasks.jsonl --reward exact --plot --report eval.html",
  ]);
}

// Its options are built when it runs (or for what walks the whole tree): not for every start-up.
const define = withWaitingOptions(newCommand, withFlags);

export type EvalOptions = OptionsOf<typeof define>;

export function registerEval(program: Parent, ctx: Context): void {
  define(program).action(async (given) => {
    const { runEvalCommand } = await import('./eval.run.js');
    await runEvalCommand(ctx, given);
  });
}
