// The resources of `aip mcp`: each verb's help (as `aip <verb> --help` prints it), the docs, the file
// formats an agent writes (sections of the docs), and this machine's history (`aip history --json`).

import type { Command } from 'commander';
import type { Deps } from '../context.js';
import type { Env } from '../settings/global-options.js';
import { type BuildProgram, redact, runVerb } from './runner.js';
import { pathOf, verbsOf } from './tools.js';

export interface Resource {
  name: string;
  uri: string;
  title: string;
  description?: string;
  mimeType: string;
  read: () => Promise<string>;
}

/** The docs served (docs/<name>.md, bundled: docs.ts). */
export const DOCS: Array<{ name: string; title: string }> = [
  { name: 'commands', title: 'Commands: every verb, its flags, formats and JSON shapes' },
  { name: 'settings', title: 'Settings, credentials, output and exit codes' },
  { name: 'emulator', title: 'The local emulator (practice without spending credits)' },
  { name: 'history', title: 'The local history of what aip did' },
  { name: 'usage', title: 'Tokens and cost from the history' },
  { name: 'reports', title: 'compare and eval reports' },
  { name: 'traces-read', title: 'Reading traces back' },
  { name: 'mcp', title: 'aip mcp: this server, its tools and rules' },
];

/** The file formats and shapes an agent needs, each a section of the docs. */
export const FORMATS: Array<{ name: string; title: string }> = [
  {
    name: 'trajectory-groups',
    title: 'Trajectory-group files (jobs create rl, models log): the RL training data',
  },
  { name: 'tasks', title: 'Task files and rewards (rollouts, train rl, eval, reward test)' },
  { name: 'json-shapes', title: 'The JSON every tool returns: jobs, models, checkpoints, events…' },
  { name: 'exit-codes', title: 'Exit codes (a failed tool result carries one)' },
];

/** How many entries of the history the resource holds (the newest). */
export const HISTORY_LIMIT = 100;

export function resourcesOf(options: {
  root: Command;
  build: BuildProgram;
  deps: Deps;
  env: Env;
  globalArgs: readonly string[];
}): Resource[] {
  const { root, build, deps, env, globalArgs } = options;
  /** What `aip <argv>` prints on stdout, or its error, for a resource. */
  const output = async (argv: string[]): Promise<string> => {
    const run = await runVerb([...globalArgs, ...argv], { build, deps, env });
    if (run.code !== 0)
      throw new Error(redact(run.stderr.trim() || `aip ${argv.join(' ')}: exit ${run.code}`));
    return redact(run.stdout);
  };
  const resources: Resource[] = [
    {
      name: 'help',
      uri: 'aip://help',
      title: 'aip --help',
      description: 'the command tree: every noun and top-level command',
      mimeType: 'text/plain',
      read: () => output(['--help', '--no-color']),
    },
  ];
  for (const verb of verbsOf(root)) {
    if ((verb as unknown as { _hidden: boolean })._hidden) continue;
    const path = pathOf(verb);
    resources.push({
      name: `help ${path.join(' ')}`,
      uri: `aip://help/${path.join('/')}`,
      title: `aip ${path.join(' ')} --help`,
      description: verb.description(),
      mimeType: 'text/plain',
      read: () => output([...path, '--help', '--no-color']),
    });
  }
  for (const doc of DOCS) {
    resources.push({
      name: `docs ${doc.name}`,
      uri: `aip://docs/${doc.name}`,
      title: doc.title,
      mimeType: 'text/markdown',
      read: async () => (await import('./docs.js')).DOC_TEXTS[doc.name]!,
    });
  }
  for (const format of FORMATS) {
    resources.push({
      name: `format ${format.name}`,
      uri: `aip://formats/${format.name}`,
      title: format.title,
      mimeType: 'text/markdown',
      read: async () => (await import('./docs.js')).FORMAT_TEXTS[format.name]!(),
    });
  }
  resources.push({
    name: 'history',
    uri: 'aip://history',
    title: 'What aip did on this machine',
    description: `the newest ${HISTORY_LIMIT} entries of the local history (aip history --json): commands, how they ended, the ids they made, tokens`,
    mimeType: 'application/json',
    read: () => output(['history', 'list', '--json', '--limit', String(HISTORY_LIMIT)]),
  });
  return resources;
}
