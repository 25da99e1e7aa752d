// The command tree. Building it is cheap: each noun registers its verbs with flags, help and examples,
// and a verb's code (and its heavy dependencies) is imported only when that verb runs. Tests build a
// fresh tree per run through main(), which builds only what its command line needs (commands/verbs.ts).

import { Command, InvalidArgumentError, Option } from 'commander';
import { onGitHubActions } from './ci/detect.js';
import { registerAuth } from './commands/auth/register.js';
import { registerChat } from './commands/chat/chat.js';
import { registerCheckpoints } from './commands/checkpoints/register.js';
import { registerCompare } from './commands/compare/compare.js';
import { registerCompletion } from './commands/completion/completion.js';
import { registerConfig } from './commands/config/register.js';
import { contentValues } from './commands/content.js';
import { registerDoctor } from './commands/doctor/doctor.js';
import { registerEmulator } from './commands/emulator/register.js';
import { registerEval } from './commands/eval/eval.js';
import { registerEvents } from './commands/events/events.js';
import { examples } from './commands/examples.js';
import { registerHealth } from './commands/health/health.js';
import { registerHelp } from './commands/help/help.js';
import { registerHistory } from './commands/history/register.js';
import { registerJobs } from './commands/jobs/register.js';
import { registerMcp } from './commands/mcp/mcp.js';
import { registerModels } from './commands/models/register.js';
import { registerReward } from './commands/reward/register.js';
import { registerRollouts } from './commands/rollouts/rollouts.js';
import { registerSystemCheck } from './commands/system-check/system-check.js';
import { registerTraces } from './commands/traces/register.js';
import { registerTrain } from './commands/train/register.js';
import type { Parent } from './commands/types.js';
import { registerUsage } from './commands/usage/register.js';
import { valueKind } from './commands/value-kinds.js';
import { deferVerbs, hasWaitingOptions, wholeTree } from './commands/verbs.js';
import type { Context } from './context.js';
import { VERSION } from './lib/version.js';
import type { GlobalOptions } from './settings/global-options.js';
import { normalizeProject, normalizeUrl } from './settings/keys.js';
import { checkProfileName } from './settings/profiles.js';

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

/** The global options, made afresh for each command that takes them (an Option belongs to one command). */
function globalOptions(): Option[] {
  return [
    valueKind(
      'profile',
      new Option(
        '--profile <name>',
        'settings profile to use (env AIP_PROFILE; built in: default, local, forge)',
      ).argParser(parser(checkProfileName)),
    ),
    new Option('--project <team/project>', 'team/project to work in (env AIP_PROJECT)').argParser(
      parser(normalizeProject),
    ),
    new Option('--base-url <url>', 'Training API base URL, ending in /v1 (env AIP_BASE_URL)').argParser(
      parser(normalizeUrl),
    ),
    new Option(
      '--inference-url <url>',
      'Inference API base URL, ending in /v1 (env AIP_INFERENCE_URL)',
    ).argParser(parser(normalizeUrl)),
    new Option('--trace-url <url>', 'trace-ingest base URL (env AIP_TRACE_URL)').argParser(
      parser(normalizeUrl),
    ),
    new Option('--json', 'print results as JSON'),
    new Option('--jsonl', 'print results as JSON Lines: a list one item per line, as it arrives'),
    new Option('--jq <expression>', "filter the JSON output with jq's language (implies --json)"),
    new Option('-q, --quiet', 'print only ids; no progress or hints'),
    new Option('--no-color', 'turn off colour (also NO_COLOR, FORCE_COLOR=0, TERM=dumb)'),
    new Option('--debug', 'log each HTTP exchange on stderr, secrets masked; stack traces on errors'),
    new Option(
      '--timeout <seconds>',
      'per-request timeout; for commands that wait, the overall deadline',
    ).argParser(parser(parseSeconds)),
    new Option('--max-retries <n>', 'retries of idempotent requests (default 3)').argParser(
      parser(parseRetries),
    ),
    new Option('--no-input', 'never prompt; fail instead'),
    new Option('--no-pager', 'print long output directly, without a pager (also AIP_PAGER=cat)'),
    new Option('-y, --yes', 'confirm destructive actions without asking'),
    new Option(
      '--ci <provider>',
      'CI integration: github (annotations, step summary, outputs) or none (default: github when GITHUB_ACTIONS=true)',
    ).choices(['github', 'none'] as const),
  ];
}

/**
 * Each word of the command line is parsed by the command it belongs to, the one that knows which of
 * its options take a value: the root parses the words before the command's name (positional options),
 * the command the rest. So `aip checkpoints list --limit -V` gives --limit the value "-V", and
 * -V/--version is the root's alone (`aip --version`), never a value's or an argument's stand-in.
 *
 * The global options are still accepted after the command's name: the command being dispatched to gets
 * them too, hidden (its help lists them once, under "Global Options"), and hands each value it parses
 * to the root, where ctx.globals reads it. They are added on the way down, to the few commands of the
 * line being run, so building the tree costs no more, and the tree that help, completion and tests
 * look at is the one registered. -V/--version given after a command is a usage error that says where
 * it goes.
 */
function acceptGlobalOptions(program: Command): (parent: Command, command: Command) => void {
  const accept = (_parent: Command, command: Command) => {
    const taken = (flag: string | undefined) =>
      flag !== undefined && command.options.some((o) => o.long === flag || o.short === flag);
    for (const option of globalOptions()) {
      // A command's own option of the same name wins.
      if (taken(option.long) || taken(option.short)) continue;
      command.addOption(option.hideHelp());
      const key = option.attributeName();
      command.on(`option:${option.name()}`, () => {
        program.setOptionValueWithSource(key, command.getOptionValue(key), 'cli');
      });
    }
    // -V/--version after a command's name: a usage error that says where the version flag goes, and
    // how to pass the word as a value instead.
    for (const flag of ['-V', '--version']) {
      if (taken(flag)) continue;
      const misplaced = new Option(flag).hideHelp();
      command.addOption(misplaced);
      command.on(`option:${misplaced.name()}`, () => {
        const names: string[] = [];
        for (let c: Command | null = command; c; c = c.parent) names.unshift(c.name());
        const path = names.join(' ');
        const asValue = command.registeredArguments.length
          ? `; an argument that starts with "-" goes after --: ${path} -- ${flag}`
          : '';
        command.error(`error: unknown option '${flag}' (aip --version prints the version${asValue})`, {
          code: 'commander.unknownOption',
        });
      });
    }
    command.hook('preSubcommand', accept);
  };
  return accept;
}

/**
 * A command's entry in its parent's list of commands, as commander writes it, but "[options]" only for
 * options the command shows: the global ones it takes after its name (above) are hidden, and `aip help`
 * lists the commands after dispatching to `help`.
 */
function subcommandTerm(command: Command): string {
  const alias = command.aliases()[0];
  const args = command.registeredArguments.map((a) => {
    const name = `${a.name()}${a.variadic ? '...' : ''}`;
    return a.required ? `<${name}>` : `[${name}]`;
  });
  return [
    `${command.name()}${alias ? `|${alias}` : ''}`,
    ...(command.options.some((o) => !o.hidden) || hasWaitingOptions(command as unknown as Parent)
      ? ['[options]']
      : []),
    ...args,
  ].join(' ');
}

/**
 * The root's options a command's help lists under "Global Options", as commander lists them, but for
 * -V/--version: it goes before any command (`aip --version`), and is refused after one.
 */
function visibleGlobalOptions(command: Command): Option[] {
  const options: Option[] = [];
  for (let c = command.parent; c; c = c.parent)
    options.push(...c.options.filter((o) => !o.hidden && o.long !== '--version'));
  return options;
}

/** The tree with every noun's verbs in it (commands/verbs.ts), for what walks all of it. */
/** "jobs create rl": the command's names from below the root. */
function pathOf(command: Command): string {
  const names: string[] = [];
  for (let c: Command | null = command; c?.parent; c = c.parent) names.unshift(c.name());
  return names.join(' ');
}

export function wholeProgram(program: Command): Command {
  wholeTree(program as unknown as Parent);
  return program;
}

/**
 * The command tree. With `deferVerbs`, a noun's verbs are added when the noun runs (main builds a tree
 * for one command line); without, the tree is whole from the start (for what walks it).
 */
export function buildProgram(ctx: Context, options: { deferVerbs?: boolean } = {}): Command {
  const { io } = ctx;
  const program = new Command('aip');
  program
    .description('Train, chat with and trace models on the serverless ML platform (or its local emulator).')
    .version(VERSION, '-V, --version', 'print the version')
    .helpOption('-h, --help', 'show help for a command')
    .helpCommand(false)
    // Set before the nouns are added, which inherit it: each parses only up to its verb.
    .enablePositionalOptions()
    .exitOverride()
    .configureOutput({
      writeOut: (text) => io.write(text),
      writeErr: (text) => io.errWrite(text),
      outputError: (text, write) => write(text),
    })
    .configureHelp({ showGlobalOptions: true, sortSubcommands: false, subcommandTerm, visibleGlobalOptions })
    .showSuggestionAfterError(true);
  for (const option of globalOptions()) program.addOption(option);
  // The root is one object, typed as the parent the nouns are added to (below).
  const root = program as unknown as Parent;
  // First: a noun gets its verbs before the global options are added to it, as when built whole.
  if (options.deferVerbs) deferVerbs(root);
  program.hook('preSubcommand', acceptGlobalOptions(program));
  // The nouns and their verbs are defined with commander's extra typings, which infer each verb's
  // options from its flags (commands/types.ts). The root is built above with commander's own, as its
  // hooks handle every command alike.
  examples(root, [
    'aip emulator --detach && aip --profile local health',
    'aip auth login',
    'aip config set project my-team/my-project',
    'aip system-check --json',
    'aip help exit-codes',
  ]);

  program.hook('preAction', async (_root, actionCommand) => {
    // Completion answers with candidates and nothing else (no CI mask lines), whatever the environment.
    if (actionCommand.name() === '__complete') return;
    ctx.globals = actionCommand.optsWithGlobals<GlobalOptions>();
    ctx.commandPath = pathOf(actionCommand);
    ctx.contentWords = contentValues(actionCommand);
    const { color, quiet, json, jsonl, jq } = ctx.globals;
    io.configure({ noColor: color === false, quiet, json, jsonl });
    // Before the command prints anything: on GitHub Actions, the keys masked first (ci/start.ts),
    // loaded only there.
    if (onGitHubActions(ctx.env, ctx.globals.ci)) (await import('./ci/start.js')).startCi(ctx);
    // Compiled before the command runs: a bad expression is a usage error, and nothing is sent.
    if (jq !== undefined) await io.useJq(jq);
  });

  registerAuth(root, ctx);
  registerConfig(root, ctx);
  registerModels(root, ctx);
  registerCheckpoints(root, ctx);
  registerJobs(root, ctx);
  registerEvents(root, ctx);
  registerTraces(root, ctx);
  registerChat(root, ctx);
  registerRollouts(root, ctx);
  registerEval(root, ctx);
  registerCompare(root, ctx);
  registerReward(root, ctx);
  registerTrain(root, ctx);
  registerHistory(root, ctx);
  registerUsage(root, ctx);
  registerHealth(root, ctx);
  registerSystemCheck(root, ctx);
  registerDoctor(root, ctx);
  registerMcp(root, ctx, buildProgram);
  registerEmulator(root, ctx);
  registerCompletion(root, ctx);
  registerHelp(root, ctx);
  // `aip help …` is the one help command; nouns answer `--help` instead of growing their own.
  for (const command of program.commands) command.helpCommand(false);
  return program;
}
