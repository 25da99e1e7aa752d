// The command tree. Building it is cheap: each noun registers its verbs with flags, help and examples,
// and a verb's code (and its heavy dependencies) is imported only when that verb runs. Tests build a
// fresh tree per run through main().

import { Command, InvalidArgumentError } from 'commander';
import { registerAuth } from './commands/auth/register.js';
import { registerChat } from './commands/chat/register.js';
import { registerCheckpoints } from './commands/checkpoints/register.js';
import { registerCompletion } from './commands/completion/register.js';
import { registerConfig } from './commands/config/register.js';
import { registerEmulator } from './commands/emulator/register.js';
import { registerEvents } from './commands/events/register.js';
import { examples } from './commands/examples.js';
import { registerHealth } from './commands/health/register.js';
import { registerHelp } from './commands/help/register.js';
import { registerJobs } from './commands/jobs/register.js';
import { registerModels } from './commands/models/register.js';
import { registerTraces } from './commands/traces/register.js';
import type { Context } from './context.js';
import type { GlobalOptions } from './globals.js';
import { normalizeProject, normalizeUrl } from './settings/keys.js';
import { checkProfileName } from './settings/profiles.js';
import { VERSION } from './version.js';

/** Adapts a checking function to commander: its message becomes a usage error (exit 2). */
function parser<T>(check: (value: string) => T): (value: string) => T {
  return (value) => {
    try {
      return check(value);
    } catch (error) {
      throw new InvalidArgumentError((error as Error).message);
    }
  };
}

const MAX_TIMEOUT_SECONDS = 7 * 24 * 3600;

export function parseSeconds(value: string): number {
  const seconds = Number(value);
  if (!/^\d+(\.\d+)?$/.test(value.trim()) || !Number.isFinite(seconds) || seconds <= 0) {
    throw new Error(`expected a number of seconds greater than 0, got "${value}"`);
  }
  if (seconds > MAX_TIMEOUT_SECONDS) throw new Error(`at most ${MAX_TIMEOUT_SECONDS} seconds (7 days)`);
  return seconds;
}

export function parseRetries(value: string): number {
  if (!/^\d+$/.test(value.trim()) || Number(value) > 10) {
    throw new Error(`expected a whole number from 0 to 10, got "${value}"`);
  }
  return Number(value);
}

function addGlobalOptions(program: Command): void {
  program
    .option(
      '--profile <name>',
      'settings profile to use (env AIP_PROFILE; built in: default, local, forge)',
      parser(checkProfileName),
    )
    .option('--project <team/project>', 'team/project to work in (env AIP_PROJECT)', parser(normalizeProject))
    .option(
      '--base-url <url>',
      'Training API base URL, ending in /v1 (env AIP_BASE_URL)',
      parser(normalizeUrl),
    )
    .option(
      '--inference-url <url>',
      'Inference API base URL, ending in /v1 (env AIP_INFERENCE_URL)',
      parser(normalizeUrl),
    )
    .option('--trace-url <url>', 'trace-ingest base URL (env AIP_TRACE_URL)', parser(normalizeUrl))
    .option('--json', 'print results as JSON')
    .option('-q, --quiet', 'print only ids; no progress or hints')
    .option('--no-color', 'turn off colour (also NO_COLOR, FORCE_COLOR=0, TERM=dumb)')
    .option('--debug', 'log each HTTP exchange on stderr, secrets masked; stack traces on errors')
    .option(
      '--timeout <seconds>',
      'per-request timeout; for commands that wait, the overall deadline',
      parser(parseSeconds),
    )
    .option('--max-retries <n>', 'retries of idempotent requests (default 3)', parser(parseRetries))
    .option('--no-input', 'never prompt; fail instead')
    .option('-y, --yes', 'confirm destructive actions without asking');
}

export function buildProgram(ctx: Context): Command {
  const { io } = ctx;
  const program = new Command('aip');
  program
    .description('Train, chat with and trace models on the serverless ML platform (or its local emulator).')
    .version(VERSION, '-V, --version', 'print the version')
    .helpOption('-h, --help', 'show help for a command')
    .helpCommand(false)
    .exitOverride()
    .configureOutput({
      writeOut: (text) => io.write(text),
      writeErr: (text) => io.errWrite(text),
      outputError: (text, write) => write(text),
    })
    .configureHelp({ showGlobalOptions: true, sortSubcommands: false })
    .showSuggestionAfterError(true);
  addGlobalOptions(program);
  examples(program, [
    'aip emulator --detach && aip --profile local health',
    'aip auth login',
    'aip config set project my-team/my-project',
    'aip system-check --json',
    'aip help exit-codes',
  ]);

  program.hook('preAction', (_root, actionCommand) => {
    ctx.globals = actionCommand.optsWithGlobals<GlobalOptions>();
    io.configure({ noColor: ctx.globals.color === false, quiet: ctx.globals.quiet });
  });

  registerAuth(program, ctx);
  registerConfig(program, ctx);
  registerModels(program, ctx);
  registerCheckpoints(program, ctx);
  registerJobs(program, ctx);
  registerEvents(program, ctx);
  registerTraces(program, ctx);
  registerChat(program, ctx);
  registerHealth(program, ctx);
  registerEmulator(program, ctx);
  registerCompletion(program, ctx);
  registerHelp(program, ctx);
  // `aip help …` is the one help command; nouns answer `--help` instead of growing their own.
  for (const command of program.commands) command.helpCommand(false);
  return program;
}
