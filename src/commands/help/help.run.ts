// `aip help <topic>`: the exit codes and the environment, which no single command's help covers;
// `aip help <command…>` is the same as `aip <command…> --help`.

import type { CommandUnknownOpts as Command } from '@commander-js/extra-typings';
import type { Context } from '../../context.js';
import { EXIT_CODE_TABLE, UsageError } from '../../errors/errors.js';
import { ownValue } from '../../lib/own.js';
import { SETTING_KEYS, SETTINGS } from '../../settings/keys.js';

export const ENVIRONMENT: ReadonlyArray<[name: string, meaning: string]> = [
  ['AIP_API_KEY', 'API key; overrides the stored key (never pass a key as an argument)'],
  ['WANDB_API_KEY', 'fallback key, used when neither AIP_API_KEY nor the profile gives one'],
  ['AIP_PROFILE', 'profile to use (as --profile)'],
  ...SETTING_KEYS.flatMap((key): Array<[string, string]> => {
    const env = SETTINGS[key].env;
    return env ? [[env, `${key}: ${SETTINGS[key].description}`]] : [];
  }),
  ['AIP_CONFIG_DIR', 'directory of config.json (default $XDG_CONFIG_HOME/aip or ~/.config/aip)'],
  [
    'AIP_MAX_RESPONSE_BYTES',
    'size limit of every kind of answer at once (defaults 1M to 64M by kind), e.g. 128M',
  ],
  ['AIP_MAX_HEADER_BYTES', 'largest response headers read (default 32K)'],
  ['AIP_MAX_PAGES', 'most pages --all follows (default 10000)'],
  [
    'AIP_MAX_LINE_BYTES',
    'longest line (in OTLP input: resource, scope or span) of a file aip reads (default 64M)',
  ],
  ['NO_COLOR, FORCE_COLOR=0, TERM=dumb', 'turn colour off (FORCE_COLOR=1 turns it on when piped)'],
  ['CI', 'when set, no spinners or progress bars: one plain line per change'],
  [
    'TRACEPARENT',
    'W3C trace context that spans made by aip nest under (traces exec sets it for its command)',
  ],
  ['OTEL_SERVICE_NAME', 'service.name of spans made by aip (default aip)'],
  [
    'OTEL_RESOURCE_ATTRIBUTES',
    'k=v,… resource attributes of spans made by aip (wandb.entity/wandb.project route them)',
  ],
];

function twoColumns(rows: ReadonlyArray<readonly [string, string]>): string {
  const width = Math.max(...rows.map(([a]) => a.length));
  return rows.map(([a, b]) => `  ${a.padEnd(width)}  ${b}`).join('\n');
}

const TOPICS: Record<string, () => string> = {
  'exit-codes': () =>
    `Exit codes (the same for every command):\n\n${twoColumns(EXIT_CODE_TABLE.map((r) => [String(r.code), r.meaning]))}\n\n` +
    'aip traces exec exits with the status of the command it ran.\n',
  environment: () =>
    `Environment variables (order: flag > environment > profile > built-in default):\n\n${twoColumns(ENVIRONMENT)}\n`,
};

export async function runHelp(ctx: Context, program: Command, topic: string[]): Promise<void> {
  if (topic.length === 0) {
    program.outputHelp();
    return;
  }
  const text = topic.length === 1 ? ownValue(TOPICS, topic[0]!) : undefined;
  if (text) {
    ctx.io.write(text());
    return;
  }
  let command: Command | undefined = program;
  for (const name of topic)
    command = command?.commands.find((c) => c.name() === name || c.aliases().includes(name));
  if (!command) {
    throw new UsageError(
      `no help topic or command "${topic.join(' ')}": topics are ${Object.keys(TOPICS).join(', ')}; see aip --help for commands`,
    );
  }
  command.outputHelp();
}
