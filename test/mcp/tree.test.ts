// The tools of `aip mcp` are the command tree: every verb is a tool or on the documented exclusion list
// (src/mcp/tools.ts, docs/mcp.md), the classification names only verbs, every verb that asks a person
// to confirm is destructive, and a call's input becomes the command line commander parses back.

import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import {
  argvFor,
  confirmationMissing,
  DESTRUCTIVE,
  deriveTools,
  EXCLUDED,
  inputShape,
  pathOf,
  READ,
  RUNS_COMMANDS,
  TAKES_COMMAND_OR_URL_SAFELY,
  type ToolSpec,
  verbsOf,
} from '../../src/mcp/tools.js';
import { wholeProgram } from '../../src/program.js';
import { commandTree } from '../helpers/cli.js';

const tree = () => wholeProgram(commandTree());
const verbs = verbsOf(tree()).map((c) => pathOf(c).join(' '));
const tools = deriveTools(tree());
const tool = (name: string): ToolSpec => {
  const found = tools.find((t) => t.name === name);
  if (!found) throw new Error(`no tool ${name}`);
  return found;
};

describe('the tools of aip mcp', () => {
  it('every verb of the tree is a tool or excluded, with a reason', () => {
    const asTools = new Set(tools.map((t) => t.path.join(' ')));
    const unplaced = verbs.filter((v) => !asTools.has(v) && !(v in EXCLUDED));
    expect(
      unplaced,
      `verbs neither a tool nor in EXCLUDED (src/mcp/tools.ts): ${unplaced.join(', ')}`,
    ).toEqual([]);
    const both = verbs.filter((v) => asTools.has(v) && v in EXCLUDED);
    expect(both).toEqual([]);
    for (const [verb, reason] of Object.entries(EXCLUDED)) {
      expect(verbs, `EXCLUDED names "${verb}", which is no verb`).toContain(verb);
      expect(reason.length).toBeGreaterThan(10);
    }
    // docs/mcp.md lists each one too.
    const doc = readFileSync(join(import.meta.dirname, '..', '..', 'docs', 'mcp.md'), 'utf8');
    for (const verb of Object.keys(EXCLUDED)) expect(doc, `docs/mcp.md on ${verb}`).toContain(`\`${verb}\``);
  });

  it('READ and DESTRUCTIVE name verbs that are tools, in one of them only', () => {
    for (const verb of [...READ, ...DESTRUCTIVE]) {
      expect(verbs, `${verb} is no verb`).toContain(verb);
      expect(verb in EXCLUDED, `${verb} is excluded`).toBe(false);
      expect(READ.has(verb) && DESTRUCTIVE.has(verb), verb).toBe(false);
    }
    expect(
      deriveTools(tree(), { readOnly: true })
        .map((t) => t.path.join(' '))
        .sort(),
    ).toEqual([...READ].sort());
  });

  it('with --read-only, no input of a tool that reads writes a file (compare --report is left out)', () => {
    const full = deriveTools(tree()).find((t) => t.name === 'compare')!;
    expect(full.params.map((p) => p.name)).toContain('report');
    const writing = deriveTools(tree(), { readOnly: true }).flatMap((tool) =>
      tool.params
        .filter((p) => p.kind === 'value' && /\b(also )?writes?\b/i.test(p.description))
        .map((p) => `${tool.name}.${p.name}: ${p.description}`),
    );
    expect(writing).toEqual([]);
  });

  it('offers an option that runs a command or sends a key elsewhere only with allowCommands', () => {
    // Every option of the tree that takes a command or a URL has been looked at: it runs one (or sends
    // a key to one), or it is listed as harmless.
    const unreviewed = verbsOf(tree()).flatMap((verb) =>
      verb.options
        .filter((o) => /<(command|cmd|url|script)[^>]*>/.test(o.flags))
        .map((o) => `${pathOf(verb).join(' ')} ${o.long}`)
        .filter((key) => !RUNS_COMMANDS.has(key.split(' ').at(-1)!) && !(key in TAKES_COMMAND_OR_URL_SAFELY)),
    );
    expect(unreviewed).toEqual([]);
    const flags = (allowCommands: boolean) =>
      deriveTools(tree(), { allowCommands }).flatMap((t) =>
        t.params.flatMap((p) =>
          p.kind === 'value' && RUNS_COMMANDS.has(p.flag) ? [`${t.name} ${p.flag}`] : [],
        ),
      );
    expect(flags(false)).toEqual([]);
    expect(flags(true)).toEqual(
      expect.arrayContaining(['rollouts --reward-cmd', 'train_rl --reward-server', 'eval --reward-url']),
    );
  });

  it('every verb whose code asks for a confirmation is destructive', () => {
    const commands = join(import.meta.dirname, '..', '..', 'src', 'commands');
    const asking: string[] = [];
    const walk = (dir: string) => {
      for (const entry of readdirSync(dir, { withFileTypes: true })) {
        const path = join(dir, entry.name);
        if (entry.isDirectory()) walk(path);
        else if (
          entry.name.endsWith('.run.ts') &&
          /from '\.\.\/(confirm|forget-remembered)\.js'/.test(readFileSync(path, 'utf8'))
        ) {
          // src/commands/<noun>/<verb>.run.ts
          asking.push(
            relative(commands, path)
              .replace(/\.run\.ts$/, '')
              .split('/')
              .join(' '),
          );
        }
      }
    };
    walk(commands);
    expect(asking.length).toBeGreaterThanOrEqual(6);
    for (const verb of asking) expect(DESTRUCTIVE.has(verb), `${verb} asks for a confirmation`).toBe(true);
  });

  it('names each tool after its verb, uniquely', () => {
    const names = tools.map((t) => t.name);
    expect(new Set(names).size).toBe(names.length);
    for (const name of names) expect(name).toMatch(/^[a-z][a-z0-9_]*$/);
    expect(names).toEqual(
      expect.arrayContaining(['jobs_create_rl', 'models_list', 'system_check', 'rollouts']),
    );
  });

  it("derives each tool's input from the verb's arguments and options", () => {
    for (const t of tools) expect(() => inputShape(t), t.name).not.toThrow();
    const create = tool('jobs_create_rl');
    const params = Object.fromEntries(create.params.map((p) => [p.name, p]));
    expect(params.model).toMatchObject({ kind: 'value', flag: '--model', required: true });
    expect(params.loss_fn).toMatchObject({ kind: 'value', choices: ['cispo', 'ppo'] });
    expect(params.wait).toMatchObject({ kind: 'switch', on: '--wait' });
    expect(params.project).toMatchObject({ kind: 'value', flag: '--project' });
    expect(tool('chat').params.find((p) => p.name === 'stream')).toMatchObject({
      kind: 'switch',
      on: '--stream',
      off: '--no-stream',
    });
    expect(tool('eval').params.find((p) => p.name === 'model')).toMatchObject({ repeatable: true });
    expect(tool('rollouts_merge').params[0]).toMatchObject({
      kind: 'argument',
      name: 'shard_file',
      variadic: true,
    });
    expect(tool('models_delete').params.at(-1)).toMatchObject({ kind: 'confirm' });
  });

  it("makes the command line that commander parses back into the call's input", async () => {
    const argv = argvFor(tool('eval'), {
      model: ['a:step0', 'a:latest'],
      tasks: '-odd name.jsonl',
      reward: 'exact',
      group_size: 2,
      diff: true,
    });
    expect(argv).toEqual([
      'eval',
      '--model=a:step0',
      '--model=a:latest',
      '--tasks=-odd name.jsonl',
      '--group-size=2',
      '--reward=exact',
      '--diff',
      '--json',
      '--no-input',
      '--no-color',
    ]);
    // Parsed by the verb itself: the values are the call's.
    const program = tree();
    const evalCommand = program.commands.find((c) => c.name() === 'eval') as Command;
    let seen: Record<string, unknown> = {};
    evalCommand.action((options: Record<string, unknown>) => {
      seen = options;
    });
    await program.parseAsync(argv, { from: 'user' });
    expect(seen).toMatchObject({
      model: ['a:step0', 'a:latest'],
      tasks: '-odd name.jsonl',
      groupSize: 2,
      diff: true,
    });

    expect(argvFor(tool('checkpoints_list'), { model: '-V', order: 'desc' })).toEqual([
      'checkpoints',
      'list',
      '--order=desc',
      '--json',
      '--no-input',
      '--no-color',
      '--',
      '-V',
    ]);
    expect(argvFor(tool('chat'), { prompt: ['hi'], stream: false })).toContain('--no-stream');
  });

  it('runs a destructive tool only when confirmed (or a dry run)', () => {
    const prune = tool('checkpoints_prune');
    expect(confirmationMissing(prune, { model: 'm', keep_last: 1 })).toMatch(/confirm: true/);
    expect(confirmationMissing(prune, { model: 'm', keep_last: 1, dry_run: true })).toBeUndefined();
    expect(confirmationMissing(prune, { model: 'm', confirm: true })).toBeUndefined();
    expect(argvFor(prune, { model: 'm', confirm: true })).toContain('--yes');
    expect(confirmationMissing(tool('models_list'), {})).toBeUndefined();
  });
});
