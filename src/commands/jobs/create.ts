// `aip jobs create rl` and `aip jobs create sft`: their flags, help and examples; the code that runs
// is create.run.ts.

import { type Command, InvalidArgumentError, Option, type OptionValues } from '@commander-js/extra-typings';
import type { Context } from '../../context.js';
import { examples } from '../examples.js';
import { parseInterval, parseNumberList } from '../parsers.js';
import { rlConfigFlags } from '../rl-config-flags.js';
import type { OptionsOf, Parent } from '../types.js';
import { valueKind } from '../value-kinds.js';
import { givenWords, parseStall, STALL_FLAG, STALL_HELP } from '../wait-flags.js';

const MODEL = 'model id, or a name created from this machine';

/** The flags both kinds of job take, after their own. */
function waitOptions<Args extends unknown[], Opts extends OptionValues, Globals extends OptionValues>(
  command: Command<Args, Opts, Globals>,
) {
  return command
    .option(
      '--wait',
      'follow the job to its end (exit 0 succeeded, 5 failed, 7 --timeout reached, 8 stalled)',
    )
    .option('--interval <seconds>', 'seconds between polls while waiting (default 1)', parseInterval)
    .option(STALL_FLAG, `with --wait: ${STALL_HELP}`, parseStall)
    .option(
      '--dry-run',
      'print the exact request (method, URL, headers with the key masked, body) and send nothing',
    );
}

function parseBatchSize(value: string): number | 'auto' {
  if (value === 'auto') return value;
  if (!/^\d+$/.test(value) || Number(value) < 1)
    throw new InvalidArgumentError('expected a whole number or auto');
  return Number(value);
}

function defineRl(create: Parent) {
  const rl = waitOptions(
    rlConfigFlags(
      create
        .command('rl')
        .description('an RL job from trajectory groups (JSON Lines or a JSON array; - for stdin)')
        .addOption(valueKind('model', new Option('--model <model>', MODEL)).makeOptionMandatory())
        .addOption(
          valueKind(
            'file',
            new Option('--file <path>', 'trajectory groups to train on'),
          ).makeOptionMandatory(),
        ),
    ),
  );
  return examples(rl, [
    'aip jobs create rl --model agent-001 --file groups.jsonl --wait',
    'aip jobs create rl --model agent-001 --file groups.jsonl --learning-rate 1e-5 --config \'{"scale_rewards": false}\'',
    'aip jobs create rl --model agent-001 --file groups.jsonl --dry-run',
  ]);
}

function defineSft(create: Parent) {
  const sft = waitOptions(
    create
      .command('sft')
      .description('an SFT job from training data already in W&B Artifacts')
      .addOption(valueKind('model', new Option('--model <model>', MODEL)).makeOptionMandatory())
      .requiredOption(
        '--data-url <url>',
        'wandb-artifact:///entity/project/name:version of the training JSONL',
      )
      .addOption(
        valueKind(
          'file',
          new Option('--file <path>', 'a local copy of the data, checked before anything is sent'),
        ),
      )
      .option('--batch-size <n|auto>', 'examples per batch, or auto', parseBatchSize)
      .option('--learning-rate <x[,x…]>', 'learning rate, or one per batch', parseNumberList)
      .addOption(
        new Option('--assistant-turns <which>', 'train on all assistant turns or the last').choices([
          'all',
          'last',
        ]),
      )
      .addOption(
        valueKind(
          'file',
          new Option(
            '--config <json|file>',
            'more config (SFTTrainingConfig) settings: a JSON object, or a file holding one',
          ),
        ),
      )
      .addOption(
        valueKind(
          'file',
          new Option(
            '--experimental-config <json|file>',
            'experimental_config: a JSON object, or a file holding one',
          ),
        ),
      ),
  );
  return examples(sft, [
    'aip jobs create sft --model agent-001 --data-url wandb-artifact:///team/proj/train:v0 --file train.jsonl --wait',
    'aip jobs create sft --model agent-001 --data-url wandb-artifact:///team/proj/train:v0 --batch-size 16 --learning-rate 1e-5',
  ]);
}

export type CreateRlOptions = OptionsOf<typeof defineRl>;
export type CreateSftOptions = OptionsOf<typeof defineSft>;

export function registerCreate(jobs: Parent, ctx: Context): void {
  const create = examples(
    jobs
      .command('create')
      .description('create an RL or SFT training job (checked offline first; never sent twice)'),
    [
      'aip jobs create rl --model agent-001 --file groups.jsonl',
      'aip jobs create sft --model agent-001 --data-url wandb-artifact:///team/proj/data:v0',
    ],
  );
  defineRl(create).action(async (options, command) => {
    const { runCreateRl } = await import('./create.run.js');
    await runCreateRl(ctx, options, givenWords(command));
  });
  defineSft(create).action(async (options, command) => {
    const { runCreateSft } = await import('./create.run.js');
    await runCreateSft(ctx, options, givenWords(command));
  });
}
