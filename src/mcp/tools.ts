// The MCP tools of `aip mcp`, derived from the command tree: one tool per verb (a command with an
// action of its own), its input schema made from the verb's arguments and options as commander holds
// them, and the argv that runs it made from a call's input. Nothing here is written per verb but the
// two tables below: the verbs that are no tool (EXCLUDED, each with its reason) and how the others
// are classified (READ, DESTRUCTIVE; any other verb writes). A new verb is a tool, that writes, without
// a line here; docs/mcp.md says the same, and test/mcp/tree.test.ts checks every verb is placed.

import type { Argument, Command, Option } from 'commander';
import { z } from 'zod';

/**
 * Verbs that are not tools, and why. Keyed by the verb's path ("auth login"). A verb is on this list
 * because it cannot run without a person (a prompt, a terminal), runs until stopped, hands over a
 * secret, changes where the key goes, or only makes sense to a shell.
 */
export const EXCLUDED: Readonly<Record<string, string>> = {
  'auth login':
    'asks for an API key (hidden prompt, or stdin): a key is given by a person, never through an agent',
  'auth logout': "removes the user's stored key: a person's decision, and nothing an agent needs to do",
  'auth token': 'prints the API key itself, the one thing a tool result must never hold',
  'config set':
    "changes the user's settings, among them the URLs the key is sent to: the server's settings are given on its own command line (aip --profile P mcp)",
  'config unset': 'changes the user\'s settings (as "config set")',
  'traces exec': 'runs a command of the shell inside a span, for CI steps: an agent runs its own commands',
  'traces serve': 'a server that runs until stopped (a local OTLP gateway)',
  'traces tail': 'follows the trace store until stopped, with no end to return',
  emulator:
    'starts the local emulator, which runs until stopped: start it from a shell (aip emulator --detach)',
  'emulator stop': 'stops a process the user started on this machine',
  completion: 'prints a shell completion script, for a shell',
  __complete: "the shell completion's own helper (hidden)",
  help: 'help text is served as resources (aip://help/…), with the docs',
  mcp: 'this server itself',
};

/**
 * Verbs that only read: they change nothing on the platform nor in aip's settings, and spend nothing
 * (no sampling). `aip mcp --read-only` exposes these alone (without WRITES_FILES, and its calls keep
 * no history). What is not here and not DESTRUCTIVE writes (creates, sends, samples, or changes
 * local records).
 */
export const READ: ReadonlySet<string> = new Set([
  'auth status',
  'config get',
  'config list',
  'config path',
  'config profiles',
  'models list',
  'models base',
  'checkpoints list',
  'jobs validate rl',
  'jobs validate sft',
  'jobs get',
  'jobs wait',
  'jobs list',
  'events',
  'traces list',
  'traces show',
  'compare',
  'history list',
  'history show',
  'history path',
  'usage summary',
  'usage prices',
  'health',
  'system-check',
  'doctor',
  'emulator status',
]);

/**
 * Options that run a command of the caller's choosing on this machine, with the user's environment
 * (the key in it: a reward command can print it in any form masking cannot know), or send the reward
 * key to a URL of its choosing. A tool offers them only when the server was started with
 * `aip mcp --allow-commands`: the user's decision, not the agent's. test/mcp/tree.test.ts checks that
 * every option of the tree that takes a command or a URL is here or in TAKES_COMMAND_OR_URL_SAFELY.
 */
export const RUNS_COMMANDS: ReadonlySet<string> = new Set([
  '--reward-cmd',
  '--reward-server',
  '--reward-url',
]);

/** Options that take a command or a URL and run or send nothing with it (looked at one by one). */
export const TAKES_COMMAND_OR_URL_SAFELY: Readonly<Record<string, string>> = {
  'history list --command': 'a filter on the command paths of the history',
  'jobs create sft --data-url': "the training data's URL, given to the platform: aip sends it no key",
};

/**
 * Options of READ verbs that write a file: left out of their tools with --read-only, so that a tool
 * that reads writes nothing (an input the schema does not have is dropped by the SDK's check).
 */
export const WRITES_FILES: Readonly<Record<string, readonly string[]>> = {
  compare: ['--report'],
};

/**
 * Verbs that delete or forget: a person confirms them (src/commands/confirm.ts, `--yes`), and as tools
 * they run only with `confirm: true` in the call (or `dry_run: true` where the verb has --dry-run).
 * test/mcp/tree.test.ts checks that every verb whose code asks for a confirmation is here.
 */
export const DESTRUCTIVE: ReadonlySet<string> = new Set([
  'models delete',
  'models forget',
  'checkpoints delete',
  'checkpoints prune',
  'jobs forget',
  'history prune',
  'emulator reset',
]);

export type Access = 'read' | 'write' | 'destructive';

/** One property of a tool's input, and how it becomes words of the command line. */
export type Param =
  | {
      kind: 'argument';
      name: string;
      variadic: boolean;
      required: boolean;
      choices?: readonly string[];
      description: string;
    }
  | { kind: 'switch'; name: string; on?: string; off?: string; description: string }
  | {
      kind: 'value';
      name: string;
      flag: string;
      /** [value]: the flag may be given alone (true). */
      optionalValue: boolean;
      repeatable: boolean;
      required: boolean;
      choices?: readonly string[];
      description: string;
    }
  | { kind: 'confirm'; name: 'confirm'; description: string };

export interface ToolSpec {
  /** "jobs_create_rl" */
  name: string;
  /** ["jobs", "create", "rl"] */
  path: string[];
  title: string;
  description: string;
  access: Access;
  params: Param[];
}

/** The global options a tool takes, when its verb has none of the same name. */
const TOOL_GLOBALS: Array<{ flags: string; description: string }> = [
  { flags: '--project <team/project>', description: 'team/project to work in (default: the server’s)' },
  {
    flags: '--timeout <seconds>',
    description:
      'per-request timeout in seconds; for tools that wait (jobs_wait…), the overall deadline (exit 7)',
  },
];

/** "group-size" → "group_size": property and tool names, as agents' tool-calling formats take them. */
const snake = (word: string) => word.replace(/^-+/, '').replaceAll('-', '_');

/** The path of names below the root. */
export function pathOf(command: Command): string[] {
  const names: string[] = [];
  for (let c: Command | null = command; c?.parent; c = c.parent) names.unshift(c.name());
  return names;
}

/**
 * Every verb of the tree, as the fault matrix and completion walk it: a command with an action of its
 * own, or one without subcommands. (commander keeps the action in a private field: `aip emulator` and
 * `aip rollouts` have an action and verbs.)
 */
export function verbsOf(root: Command): Command[] {
  const verbs: Command[] = [];
  const walk = (command: Command) => {
    const hasAction = (command as unknown as { _actionHandler: unknown })._actionHandler != null;
    if (command.parent && (hasAction || command.commands.length === 0)) verbs.push(command);
    for (const sub of command.commands) walk(sub);
  };
  walk(root);
  return verbs;
}

export function accessOf(path: string): Access {
  if (DESTRUCTIVE.has(path)) return 'destructive';
  return READ.has(path) ? 'read' : 'write';
}

function argumentParam(argument: Argument): Param {
  return {
    kind: 'argument',
    name: snake(argument.name()),
    variadic: argument.variadic,
    required: argument.required,
    ...(argument.argChoices ? { choices: argument.argChoices } : {}),
    description: argument.description || argument.name(),
  };
}

const takesValue = (option: Option) => option.required || option.optional;

function describeOption(option: Option): string {
  const parts = [option.description];
  if (option.defaultValue !== undefined && typeof option.defaultValue !== 'object')
    parts.push(`(default: ${String(option.defaultValue)})`);
  return parts.filter(Boolean).join(' ');
}

/**
 * Whether the option may be given many times: its parser keeps the values before it (the tree's
 * collect(), commands/parsers.ts), or its help says it is repeatable.
 */
function repeatable(option: Option): boolean {
  if (/\brepeatable\b/.test(option.description)) return true;
  try {
    const kept = (option.parseArg as ((value: string, previous: unknown) => unknown) | undefined)?.('b', [
      'a',
    ]);
    return Array.isArray(kept) && kept.length === 2;
  } catch {
    return false;
  }
}

/** A verb's options as params: value options one each, a --x/--no-x pair as one switch. */
function optionParams(options: readonly Option[]): Param[] {
  const params: Param[] = [];
  const switches = new Map<string, Extract<Param, { kind: 'switch' }>>();
  for (const option of options) {
    if (option.hidden) continue;
    const flag = option.long ?? option.short!;
    if (!takesValue(option)) {
      const name = snake(option.negate ? flag.replace(/^--no-/, '') : flag);
      let param = switches.get(name);
      if (!param) {
        param = { kind: 'switch', name, description: '' };
        switches.set(name, param);
        params.push(param);
      }
      if (option.negate) param.off = flag;
      else param.on = flag;
      const said = option.negate ? `false: ${option.description}` : option.description;
      param.description = param.description ? `${param.description}; ${said}` : said;
      continue;
    }
    params.push({
      kind: 'value',
      name: snake(flag),
      flag,
      optionalValue: option.optional,
      repeatable: option.variadic || repeatable(option),
      required: option.mandatory,
      ...(option.argChoices ? { choices: option.argChoices } : {}),
      description: describeOption(option),
    });
  }
  return params;
}

/** The tool of one verb. */
export function toolOf(command: Command): ToolSpec {
  const path = pathOf(command);
  const key = path.join(' ');
  const access = accessOf(key);
  const params: Param[] = [
    ...command.registeredArguments.map(argumentParam),
    ...optionParams(command.options),
  ];
  const taken = new Set(command.options.flatMap((o) => [o.long, o.short]).filter(Boolean));
  for (const global of TOOL_GLOBALS) {
    const long = global.flags.split(' ')[0]!;
    if (taken.has(long)) continue;
    params.push({
      kind: 'value',
      name: snake(long),
      flag: long,
      optionalValue: false,
      repeatable: false,
      required: false,
      description: global.description,
    });
  }
  if (access === 'destructive') {
    params.push({
      kind: 'confirm',
      name: 'confirm',
      description:
        'true once the user has agreed to this deletion (it is aip’s --yes); without it nothing is done' +
        (params.some((p) => p.name === 'dry_run') ? ' (not needed with dry_run: true)' : ''),
    });
  }
  // An argument and an option of the same name would be one property: none in the tree has one, and
  // a verb that does fails test/mcp/tree.test.ts rather than losing one of them here.
  const seen = new Set<string>();
  for (const param of params) {
    if (seen.has(param.name)) throw new Error(`aip ${key}: two inputs named "${param.name}"`);
    seen.add(param.name);
  }
  const summary = command.description();
  const notes = [
    `Runs \`aip ${key} --json\`; the result is its JSON output, a failure its error line and exit code (docs: aip://help/${path.join('/')}).`,
  ];
  if (access === 'destructive') notes.push('Destructive: needs confirm: true, after asking the user.');
  return {
    name: path.map(snake).join('_'),
    path,
    title: `aip ${key}`,
    description: `${summary.charAt(0).toUpperCase()}${summary.slice(1)}. ${notes.join(' ')}`,
    access,
    params,
  };
}

export interface ToolOptions {
  /** Only the verbs that read (READ). */
  readOnly?: boolean;
  /** The options of RUNS_COMMANDS offered (aip mcp --allow-commands). */
  allowCommands?: boolean;
}

/** The tools of the tree: every verb not excluded (with --read-only, only those that read). */
export function deriveTools(root: Command, options: ToolOptions = {}): ToolSpec[] {
  const tools = verbsOf(root)
    .filter((command) => !(pathOf(command).join(' ') in EXCLUDED))
    .map(toolOf)
    .map((tool) =>
      options.allowCommands
        ? tool
        : { ...tool, params: tool.params.filter((p) => !(p.kind === 'value' && RUNS_COMMANDS.has(p.flag))) },
    );
  if (!options.readOnly) return tools;
  return tools
    .filter((tool) => tool.access === 'read')
    .map((tool) => {
      const writes = WRITES_FILES[tool.path.join(' ')] ?? [];
      return { ...tool, params: tool.params.filter((p) => !(p.kind === 'value' && writes.includes(p.flag))) };
    });
}

// ---- input schemas ----

const scalar = z.union([z.string(), z.number()]);

/** The zod shape of a tool's input (the SDK publishes it as JSON Schema and checks each call). */
export function inputShape(tool: ToolSpec): Record<string, z.ZodType> {
  const shape: Record<string, z.ZodType> = {};
  for (const param of tool.params) {
    let type: z.ZodType;
    switch (param.kind) {
      case 'argument': {
        const one = param.choices ? z.enum(param.choices as [string, ...string[]]) : scalar;
        // One value, or many: a prompt given as one string is one word of it, as a shell's quoted.
        type = param.variadic ? z.union([one, z.array(one)]) : one;
        break;
      }
      case 'switch':
      case 'confirm':
        type = z.boolean();
        break;
      case 'value': {
        const one = param.choices ? z.enum(param.choices as [string, ...string[]]) : scalar;
        const value = param.optionalValue ? z.union([one, z.boolean()]) : one;
        type = param.repeatable ? z.union([value, z.array(value)]) : value;
      }
    }
    type = type.describe(param.description);
    const required = (param.kind === 'argument' || param.kind === 'value') && param.required;
    shape[param.name] = required ? type : type.optional();
  }
  return shape;
}

// ---- calls ----

export type ToolInput = Record<string, unknown>;

/** Why a destructive call may not run (undefined: it may). */
export function confirmationMissing(tool: ToolSpec, input: ToolInput): string | undefined {
  if (tool.access !== 'destructive' || input.confirm === true || input.dry_run === true) return undefined;
  const dryRun = tool.params.some((p) => p.name === 'dry_run') ? ' (or dry_run: true to see the plan)' : '';
  return `${tool.name} deletes: ask the user, then call it again with confirm: true${dryRun}; nothing was done`;
}

/**
 * The words after `aip` that run a call: the verb's path, its options (long ones as --flag=value, so a
 * value starting with "-" stays a value), then "--" and the arguments (an argument starting with "-"
 * stays an argument), with --json, --no-input (nothing may prompt), --no-color, and --yes for a
 * confirmed destructive call.
 */
export function argvFor(tool: ToolSpec, input: ToolInput): string[] {
  const options: string[] = [];
  const positionals: string[] = [];
  const word = (value: unknown) => String(value);
  const flagValue = (flag: string, value: unknown) =>
    flag.startsWith('--') ? [`${flag}=${word(value)}`] : [flag, word(value)];
  for (const param of tool.params) {
    const value = input[param.name];
    if (value === undefined || value === null) continue;
    switch (param.kind) {
      case 'argument':
        positionals.push(...(Array.isArray(value) ? value.map(word) : [word(value)]));
        break;
      case 'switch': {
        const flag = value === true ? param.on : value === false ? param.off : undefined;
        if (flag) options.push(flag);
        break;
      }
      case 'value':
        for (const one of Array.isArray(value) ? value : [value]) {
          if (one === false) continue;
          options.push(...(one === true ? [param.flag] : flagValue(param.flag, one)));
        }
        break;
      case 'confirm':
        if (value === true) options.push('--yes');
    }
  }
  return [
    ...tool.path,
    ...options,
    '--json',
    '--no-input',
    '--no-color',
    ...(positionals.length ? ['--', ...positionals] : []),
  ];
}
