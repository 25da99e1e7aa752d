// `aip emulator`: its flags, help and examples; the code that runs is start.run.ts. Its subcommands
// (stop, status, reset) are added to the command this returns (register.ts).

import { InvalidArgumentError, Option } from '@commander-js/extra-typings';
import type { Context } from '../../context.js';
import { EMULATOR_DEFAULT_PORT } from '../../settings/local-platform.js';
import { examples } from '../examples.js';
import { collect } from '../parsers.js';
import type { OptionsOf, Parent } from '../types.js';
import { valueKind } from '../value-kinds.js';

export function parsePort(value: string): number {
  const port = Number(value);
  if (!/^\d+$/.test(value) || port > 65535)
    throw new InvalidArgumentError('expected a port from 0 to 65535 (0: any free port)');
  return port;
}

function parseWhole(value: string): number {
  if (!/^\d+$/.test(value) || Number(value) > 3_600_000)
    throw new InvalidArgumentError('expected a whole number');
  return Number(value);
}

function define(program: Parent) {
  const emulator = program
    .command('emulator')
    .description('run the local emulator of the platform: all three interfaces on one loopback port')
    .option('--port <port>', 'port on 127.0.0.1 (0: any free port)', parsePort, EMULATOR_DEFAULT_PORT)
    .option(
      '--api-key <key>',
      'a key the emulator accepts (repeatable; default: the local profile key)',
      collect,
    )
    .option('--step-ms <ms>', 'time per step of an emulated training job (default 300)', parseWhole)
    .option('--token-ms <ms>', 'time between the tokens of a streamed chat reply (default 20)', parseWhole)
    .option(
      '--unstreamed-token-ms <ms>',
      'time per token of a chat reply sent whole, before it is sent (default 0: at once)',
      parseWhole,
    )
    .option(
      '--seed <n>',
      'seed of job ids, event ids and metrics: the same seed, the same jobs (default: random ids)',
      parseWhole,
    )
    .addOption(
      valueKind(
        'directory',
        new Option(
          '--state-dir <dir>',
          "where the state is kept across restarts (default: aip's data directory, e.g. ~/.local/share/aip/emulator)",
        ),
      ),
    )
    .option('--ephemeral', 'keep the state in memory only: gone when the emulator stops')
    .option('--demo', 'on first start, a model with a finished job, checkpoints and spans to look around')
    .option(
      '--training-chat-stream',
      'answer stream: true on the Training API with server-sent events (the published contract says JSON only)',
    )
    .option('--detach', 'run in the background; stop it with `aip emulator stop`');
  return examples(emulator, [
    'aip emulator                      # foreground, Ctrl-C stops it',
    'aip emulator --detach && aip --profile local health',
    'aip emulator --port 0 --detach --json',
    'aip emulator --step-ms 20          # jobs that finish in a blink',
    'aip emulator --ephemeral --port 0  # a throwaway one, for a test',
    'aip emulator --demo --detach       # something to look at before creating anything',
  ]);
}

export type EmulatorStartOptions = OptionsOf<typeof define>;

/** Adds `aip emulator` and returns it, for its subcommands. */
export function registerStart(program: Parent, ctx: Context): Parent {
  return define(program).action(async (options) => {
    const { runEmulator } = await import('./start.run.js');
    await runEmulator(ctx, options);
  });
}
