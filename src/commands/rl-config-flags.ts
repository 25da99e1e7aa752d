// The RL job's settings as flags, shared by `jobs create rl` and `train rl`: the same job, the same
// words for its settings. What they become (experimental_config, checked) is src/jobs/job-config.ts.

import { type Command, Option, type OptionValues } from '@commander-js/extra-typings';
import { parseNumber } from './parsers.js';
import { valueKind } from './value-kinds.js';

export function rlConfigFlags<
  Args extends unknown[],
  Opts extends OptionValues,
  Globals extends OptionValues,
>(command: Command<Args, Opts, Globals>) {
  return command
    .option('--learning-rate <x>', 'learning rate (e.g. 5e-6)', parseNumber('--learning-rate'))
    .addOption(new Option('--loss-fn <fn>', 'loss function').choices(['cispo', 'ppo'] as const))
    .option('--kl-penalty-coef <x>', 'KL penalty coefficient', parseNumber('--kl-penalty-coef'))
    .option('--epsilon <x>', 'clipping epsilon', parseNumber('--epsilon'))
    .option('--advantage-balance <x>', 'advantage balance, -1 to 1', parseNumber('--advantage-balance'))
    .option('--allow-training-without-logprobs', 'train on choices that carry no logprobs')
    .addOption(
      valueKind(
        'file',
        new Option(
          '--config <json|file>',
          'more experimental_config settings: a JSON object, or a file holding one',
        ),
      ),
    );
}
