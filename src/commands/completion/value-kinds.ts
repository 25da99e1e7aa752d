// What the values of options and arguments are, for completion: the ones commander cannot tell from a
// definition (its `.choices()` it can, and those are completed from the definition itself). Named by
// command path and flag or argument, as a user types them, so that a renamed flag or argument shows up
// as a stale entry here (test/commands/complete.test.ts walks the tree against this table).
// Anything not listed completes to nothing: no files are offered where a file is not expected.

import { ownValue } from '../../lib/own.js';

/**
 * file and directory: the shell completes paths. profile: built-in and stored profile names. job: the
 * ids of jobs created from this machine. model: names of models created from this machine.
 * chat-model: those and the default-model setting.
 */
export type ValueKind = 'file' | 'directory' | 'profile' | 'job' | 'model' | 'chat-model';

/** The options whose values are of a kind: "command path --long-flag". */
export const OPTION_VALUES = {
  'aip --profile': 'profile',
  'aip chat --model': 'chat-model',
  'aip chat --continue': 'file',
  'aip emulator --state-dir': 'directory',
  'aip emulator reset --state-dir': 'directory',
  'aip eval --model': 'model',
  'aip eval --tasks': 'file',
  'aip jobs create rl --model': 'model',
  'aip jobs create rl --file': 'file',
  'aip jobs create rl --config': 'file',
  'aip jobs create sft --model': 'model',
  'aip jobs create sft --file': 'file',
  'aip jobs create sft --config': 'file',
  'aip jobs create sft --experimental-config': 'file',
  'aip jobs list --model': 'model',
  'aip models log --file': 'file',
  'aip rollouts --model': 'model',
  'aip rollouts --tasks': 'file',
  'aip rollouts --output': 'file',
  'aip traces generate --output': 'file',
  'aip train rl --model': 'model',
  'aip train rl --tasks': 'file',
  'aip train rl --config': 'file',
  'aip train rl --run-dir': 'directory',
  'aip train rl --resume': 'directory',
} as const satisfies Record<string, ValueKind>;

/** The arguments whose values are of a kind: "command path <name>". */
export const ARGUMENT_VALUES = {
  'aip checkpoints delete <model>': 'model',
  'aip checkpoints list <model>': 'model',
  'aip checkpoints prune <model>': 'model',
  'aip events <job>': 'job',
  'aip jobs forget <job>': 'job',
  'aip jobs get <job>': 'job',
  'aip jobs validate rl <file>': 'file',
  'aip jobs validate sft <file>': 'file',
  'aip jobs wait <job>': 'job',
  'aip models delete <model>': 'model',
  'aip models forget <model>': 'model',
  'aip models log <model>': 'model',
  'aip traces send <file>': 'file',
} as const satisfies Record<string, ValueKind>;

export function optionValueKind(commandPath: string, longFlag: string): ValueKind | undefined {
  return ownValue(OPTION_VALUES as Record<string, ValueKind>, `${commandPath} ${longFlag}`);
}

export function argumentValueKind(commandPath: string, argument: string): ValueKind | undefined {
  return ownValue(ARGUMENT_VALUES as Record<string, ValueKind>, `${commandPath} <${argument}>`);
}
