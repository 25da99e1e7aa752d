import { type Command, InvalidArgumentError, Option } from 'commander';
import type { Context } from '../../context.js';
import { examples } from '../examples.js';
import { parseInterval, parseNumber, parseNumberList } from '../parsers.js';

const MODEL = 'model id, or a name created from this machine';
const JOB = 'job id, or the start of one created from this machine (at least 4 characters)';

function waitOptions(command: Command): Command {
  return command
    .option('--wait', 'follow the job to its end (exit 0 succeeded, 5 failed, 7 --timeout reached)')
    .option('--interval <seconds>', 'seconds between polls while waiting (default 1)', parseInterval)
    .option(
      '--dry-run',
      'print the exact request (method, URL, headers with the key masked, body) and send nothing',
    );
}

export function registerJobs(program: Command, ctx: Context): void {
  const jobs = program
    .command('jobs')
    .description('create, validate, inspect, wait for and forget RL and SFT training jobs');
  examples(jobs, ['aip jobs create rl --model agent-001 --file groups.jsonl --wait', 'aip jobs list']);

  const create = jobs
    .command('create')
    .description('create an RL or SFT training job (checked offline first; never sent twice)');
  examples(create, [
    'aip jobs create rl --model agent-001 --file groups.jsonl',
    'aip jobs create sft --model agent-001 --data-url wandb-artifact:///team/proj/data:v0',
  ]);

  const rl = waitOptions(
    create
      .command('rl')
      .description('an RL job from trajectory groups (JSON Lines or a JSON array; - for stdin)')
      .requiredOption('--model <model>', MODEL)
      .requiredOption('--file <path>', 'trajectory groups to train on')
      .option('--learning-rate <x>', 'learning rate (e.g. 5e-6)', parseNumber('--learning-rate'))
      .addOption(new Option('--loss-fn <fn>', 'loss function').choices(['cispo', 'ppo']))
      .option('--kl-penalty-coef <x>', 'KL penalty coefficient', parseNumber('--kl-penalty-coef'))
      .option('--epsilon <x>', 'clipping epsilon', parseNumber('--epsilon'))
      .option('--advantage-balance <x>', 'advantage balance, -1 to 1', parseNumber('--advantage-balance'))
      .option('--allow-training-without-logprobs', 'train on choices that carry no logprobs')
      .option(
        '--config <json|file>',
        'more experimental_config settings: a JSON object, or a file holding one',
      ),
  ).action(async (opts) => {
    const { runCreateRl } = await import('./create.js');
    await runCreateRl(ctx, opts);
  });
  examples(rl, [
    'aip jobs create rl --model agent-001 --file groups.jsonl --wait',
    'aip jobs create rl --model agent-001 --file groups.jsonl --learning-rate 1e-5 --config \'{"scale_rewards": false}\'',
    'aip jobs create rl --model agent-001 --file groups.jsonl --dry-run',
  ]);

  const sft = waitOptions(
    create
      .command('sft')
      .description('an SFT job from training data already in W&B Artifacts')
      .requiredOption('--model <model>', MODEL)
      .requiredOption(
        '--data-url <url>',
        'wandb-artifact:///entity/project/name:version of the training JSONL',
      )
      .option('--file <path>', 'a local copy of the data, checked before anything is sent')
      .option('--batch-size <n|auto>', 'examples per batch, or auto', (v: string) => {
        if (v === 'auto') return v;
        if (!/^\d+$/.test(v) || Number(v) < 1)
          throw new InvalidArgumentError('expected a whole number or auto');
        return Number(v);
      })
      .option('--learning-rate <x[,x…]>', 'learning rate, or one per batch', parseNumberList)
      .addOption(
        new Option('--assistant-turns <which>', 'train on all assistant turns or the last').choices([
          'all',
          'last',
        ]),
      )
      .option(
        '--config <json|file>',
        'more config (SFTTrainingConfig) settings: a JSON object, or a file holding one',
      )
      .option(
        '--experimental-config <json|file>',
        'experimental_config: a JSON object, or a file holding one',
      ),
  ).action(async (opts) => {
    const { runCreateSft } = await import('./create.js');
    await runCreateSft(ctx, opts);
  });
  examples(sft, [
    'aip jobs create sft --model agent-001 --data-url wandb-artifact:///team/proj/train:v0 --file train.jsonl --wait',
    'aip jobs create sft --model agent-001 --data-url wandb-artifact:///team/proj/train:v0 --batch-size 16 --learning-rate 1e-5',
  ]);

  const validate = jobs
    .command('validate')
    .description('check training data offline: every problem as file:line: path: problem');
  examples(validate, ['aip jobs validate rl groups.jsonl', 'aip jobs validate sft train.jsonl --json']);
  for (const kind of ['rl', 'sft'] as const) {
    const command = validate
      .command(kind)
      .description(
        kind === 'rl'
          ? 'trajectory groups (JSON Lines or a JSON array)'
          : 'SFT examples (JSON Lines of {"messages", "tools"})',
      )
      .argument('<file>', 'the file, or - for stdin')
      .action(async (file: string) => {
        const { runValidate } = await import('./validate.js');
        await runValidate(ctx, kind, file);
      });
    examples(command, [
      `aip jobs validate ${kind} ${kind === 'rl' ? 'groups.jsonl' : 'train.jsonl'}`,
      `cat data.jsonl | aip jobs validate ${kind} -`,
    ]);
  }

  const get = jobs
    .command('get')
    .description(
      'the job and its state derived from its events (queued, running k/n, succeeded, failed), with the latest metrics',
    )
    .argument('<job>', JOB)
    .action(async (job: string) => {
      const { runGet } = await import('./get.js');
      await runGet(ctx, job);
    });
  examples(get, ['aip jobs get 3f0c', 'aip jobs get 3f0c2a1e-… --json | jq .status']);

  const wait = jobs
    .command('wait')
    .description(
      'follow a job to its end: exit 0 succeeded, 5 failed, 7 --timeout reached; Ctrl-C stops watching, not the job',
    )
    .argument('<job>', JOB)
    .option('--interval <seconds>', 'seconds between polls (default 1)', parseInterval)
    .action(async (job: string, opts: { interval?: number }) => {
      const { runWait } = await import('./wait.js');
      await runWait(ctx, job, opts);
    });
  examples(wait, ['aip jobs wait 3f0c', 'aip --timeout 3600 jobs wait 3f0c || echo "not done"']);

  const list = jobs
    .command('list')
    .description('the jobs created from this machine (the API cannot list them), newest first')
    .action(async () => {
      const { runList } = await import('./list.js');
      await runList(ctx);
    });
  examples(list, ['aip jobs list', 'aip jobs list -q | head -1']);

  const forget = jobs
    .command('forget')
    .description(
      'forget jobs remembered on this machine, for this base URL (the server is not asked to change anything)',
    )
    .argument('[job...]', JOB)
    .option(
      '--all',
      'forget every job remembered for this base URL (asks first on a terminal; --yes in scripts)',
    )
    .option('--stale', 'ask the server about each remembered job and forget those it no longer knows')
    .action(async (refs: string[], opts: { all?: boolean; stale?: boolean }) => {
      const { runJobsForget } = await import('./forget.js');
      await runJobsForget(ctx, refs, opts);
    });
  examples(forget, [
    'aip jobs forget 3f0c',
    'aip --profile local jobs forget --stale',
    'aip jobs forget --all --yes',
  ]);
}
