// The flags of sampling and scoring that rollouts, eval and train rl share: they sample the same way,
// so they take the same words for it.

import { type Command, Option, type OptionValues } from '@commander-js/extra-typings';
import {
  BUILT_IN_REWARDS,
  DEFAULT_CONCURRENCY,
  DEFAULT_GROUP_SIZE,
  DEFAULT_JUDGE_TIMEOUT_S,
  DEFAULT_REWARD_TIMEOUT_S,
  DEFAULT_SANDBOX_CPU_S,
  DEFAULT_SANDBOX_MEMORY_MIB,
  DEFAULT_TEMPERATURE,
} from '../rollouts/defaults.js';
import { collect, parseNumber, parseRewardName, parseSecondsUpToADay, parseWhole } from './parsers.js';
import { valueKind } from './value-kinds.js';

export const TASKS_HELP =
  'tasks, JSON Lines: {"messages": [...], "tools"?, "reference"?, "metadata"?, "id"?}';

export function samplingFlags<Args extends unknown[], Opts extends OptionValues>(
  command: Command<Args, Opts>,
  defaultGroupSize = DEFAULT_GROUP_SIZE,
  // eval compares checkpoints on the same samples, so it has a fixed seed where rollouts draw one.
  defaultSeed = 'random',
) {
  return samplingSettingFlags(
    command.addOption(valueKind('file', new Option('--tasks <file>', TASKS_HELP)).makeOptionMandatory()),
    defaultGroupSize,
    defaultSeed,
  );
}

/**
 * The flags but --tasks, for a command that adds it itself (train rl: optional, as --resume takes
 * the tasks from the run directory).
 */
export function samplingSettingFlags<Args extends unknown[], Opts extends OptionValues>(
  command: Command<Args, Opts>,
  defaultGroupSize = DEFAULT_GROUP_SIZE,
  defaultSeed = 'random',
) {
  return command
    .option(
      '-K, --group-size <k>',
      `samples per task (default ${defaultGroupSize})`,
      parseWhole('--group-size', 1, 256),
    )
    .addOption(
      valueKind(
        'reward',
        new Option(
          '--reward <name>',
          `score each reply against the task's reference (${BUILT_IN_REWARDS.join(', ')}), or judge:MODEL, a model of the Inference API as the judge`,
        ).argParser(parseRewardName),
      ),
    )
    .addOption(
      valueKind(
        'file',
        new Option(
          '--rubric <file>',
          "with --reward judge:MODEL, what the judge scores by (text or Markdown; default: the task's goal, and its reference when it has one)",
        ),
      ),
    )
    .option(
      '--judge-group',
      'with --reward judge:MODEL, one request scores each group, its replies against each other (as RULER does), not each reply alone',
    )
    .option(
      '--reward-cmd <command>',
      'score each trajectory with a command: the trajectory as JSON on stdin, a number or {"reward": …, "metrics": {…}} on stdout',
    )
    .option(
      '--reward-server <command>',
      'score with a long-lived command: JSON Lines in ({"id", "trajectory"}), JSON Lines out ({"id", "reward", "metrics"?} or {"id", "error"}), in any order',
    )
    .option(
      '--reward-workers <n>',
      'how many --reward-server processes run side by side (default 1)',
      parseWhole('--reward-workers', 1, 256),
    )
    .option(
      '--reward-url <url>',
      'score with an HTTP service: POST {"id", "trajectory"}, answered {"id", "reward", "metrics"?}; its key from AIP_REWARD_KEY',
    )
    .option(
      '--reward-timeout <seconds>',
      `how long a reward command, server or service may take per trajectory (default ${DEFAULT_REWARD_TIMEOUT_S}), a judge per request (default ${DEFAULT_JUDGE_TIMEOUT_S})`,
      parseSecondsUpToADay,
    )
    .option(
      '--sandbox',
      'run the --reward-cmd or --reward-server confined (Linux, bubblewrap): no network, the file system read-only but a private $TMPDIR, CPU and memory limits; refused where no sandbox can be made',
    )
    .option(
      '--sandbox-cpu <seconds>',
      `with --sandbox, CPU seconds per process (default ${DEFAULT_SANDBOX_CPU_S}; a --reward-server's over its life)`,
      parseWhole('--sandbox-cpu', 1, 86_400),
    )
    .option(
      '--sandbox-memory <MiB>',
      `with --sandbox, address space per process in MiB (default ${DEFAULT_SANDBOX_MEMORY_MIB})`,
      parseWhole('--sandbox-memory', 64, 1_048_576),
    )
    .option(
      '--temperature <x>',
      `sampling temperature (default ${DEFAULT_TEMPERATURE})`,
      parseNumber('--temperature'),
    )
    .option('--max-tokens <n>', 'most tokens per reply', parseWhole('--max-tokens', 1, 1_000_000))
    .option(
      '--option <key=value>',
      'any other request parameter, value as JSON when it parses (repeatable; also -o)',
      collect,
    )
    .option(
      '--concurrency <n>',
      `requests at once, at most; fewer while the API answers 429 (default ${DEFAULT_CONCURRENCY})`,
      parseWhole('--concurrency', 1, 256),
    )
    .option(
      '--seed <n>',
      `seed of the samples: the same seed, the same requests (default: ${defaultSeed})`,
      parseWhole('--seed', 0, 2 ** 31 - 1),
    )
    .option('--trace', 'send each rollout as a GenAI chat span to trace ingest');
}
