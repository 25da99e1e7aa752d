import { type Command, InvalidArgumentError } from 'commander';
import type { Context } from '../../context.js';
import { EMULATOR_DEFAULT_PORT } from '../../emulator/defaults.js';
import { examples } from '../examples.js';

function parsePort(value: string): number {
  const port = Number(value);
  if (!/^\d+$/.test(value) || port > 65535)
    throw new InvalidArgumentError('expected a port from 0 to 65535 (0: any free port)');
  return port;
}

function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

function parseWhole(value: string): number {
  if (!/^\d+$/.test(value) || Number(value) > 3_600_000)
    throw new InvalidArgumentError('expected a whole number');
  return Number(value);
}

export interface EmulatorStartOptions {
  port: number;
  apiKey?: string[];
  detach?: boolean;
  stepMs?: number;
  tokenMs?: number;
  seed?: number;
  trainingChatStream?: boolean;
  stateDir?: string;
  ephemeral?: boolean;
  demo?: boolean;
}

export function registerEmulator(program: Command, ctx: Context): void {
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
      '--seed <n>',
      'seed of job ids, event ids and metrics: the same seed, the same jobs (default: random ids)',
      parseWhole,
    )
    .option(
      '--state-dir <dir>',
      "where the state is kept across restarts (default: aip's data directory, e.g. ~/.local/share/aip/emulator)",
    )
    .option('--ephemeral', 'keep the state in memory only: gone when the emulator stops')
    .option('--demo', 'on first start, a model with a finished job, checkpoints and spans to look around')
    .option(
      '--training-chat-stream',
      'answer stream: true on the Training API with server-sent events (the published contract says JSON only)',
    )
    .option('--detach', 'run in the background; stop it with `aip emulator stop`')
    .action(async (opts: EmulatorStartOptions) => {
      const { runEmulator } = await import('./start.js');
      await runEmulator(ctx, opts);
    });
  examples(emulator, [
    'aip emulator                      # foreground, Ctrl-C stops it',
    'aip emulator --detach && aip --profile local health',
    'aip emulator --port 0 --detach --json',
    'aip emulator --step-ms 20          # jobs that finish in a blink',
    'aip emulator --ephemeral --port 0  # a throwaway one, for a test',
    'aip emulator --demo --detach       # something to look at before creating anything',
  ]);

  const stop = emulator
    .command('stop')
    .description('stop the emulator started with --detach')
    .action(async () => {
      const { runStop } = await import('./stop.js');
      await runStop(ctx);
    });
  examples(stop, ['aip emulator stop']);

  const status = emulator
    .command('status')
    .description('show whether an emulator is running, where, and how many requests it has served')
    .action(async () => {
      const { runStatus } = await import('./status.js');
      await runStatus(ctx);
    });
  examples(status, ['aip emulator status', 'aip emulator status --json']);

  const reset = emulator
    .command('reset')
    .description(
      "empty the emulator's state: models, checkpoints, jobs, logs, spans and the request record (asks first)",
    )
    .option(
      '--state-dir <dir>',
      "the state directory, when no emulator runs on it (default: aip's data directory)",
    )
    .action(async (opts: { stateDir?: string }) => {
      const { runReset } = await import('./reset.js');
      await runReset(ctx, opts);
    });
  examples(reset, ['aip emulator reset', 'aip emulator reset --yes   # in a script']);
}
