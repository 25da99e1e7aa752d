// main() builds the tree for one command line: a noun's verbs are added when the noun runs
// (src/commands/verbs.ts). What a user sees must not tell: every command's help, as main() prints it,
// is the help of the same command in the whole tree.

import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { Context } from '../../src/context.js';
import { buildProgram, wholeProgram } from '../../src/program.js';
import { commandTree, runCli } from '../helpers/cli.js';
import { fakeIO } from '../helpers/io.js';

function paths(command: Command, path: string[] = []): string[][] {
  return [path, ...command.commands.flatMap((c) => paths(c, [...path, c.name()]))];
}

/** A context that runs nothing, over a fake IO. */
function quietContext(io = fakeIO().io): Context {
  const transport = async () => {
    throw new Error('nothing is sent');
  };
  return new Context({
    env: {},
    io,
    transport,
    sleep: async () => {},
    random: Math.random,
    signals: process,
  });
}

/** The tree main() builds, before it parses anything. */
function deferredTree(): Command {
  return buildProgram(quietContext(), { deferVerbs: true });
}

/** Help of the command at `path` in the whole tree, printed by commander as `--help` prints it. */
async function wholeTreeHelp(path: string[]): Promise<string> {
  const { io, stdout } = fakeIO();
  const program = buildProgram(quietContext(io));
  await expect(program.parseAsync([...path, '--help'], { from: 'user' })).rejects.toMatchObject({
    code: 'commander.helpDisplayed',
  });
  return stdout.text;
}

describe('the tree main() builds for one command line', () => {
  it('prints every command’s help as the whole tree does', async () => {
    const all = paths(commandTree());
    expect(all.length).toBeGreaterThan(40);
    for (const path of all) {
      const r = await runCli([...path, '--help']);
      expect(r.code, path.join(' ')).toBe(0);
      expect(r.stdout, path.join(' ')).toBe(await wholeTreeHelp(path));
    }
  });

  it('has the nouns but not their verbs until a noun runs; wholeProgram adds them all', () => {
    const program = deferredTree();
    const jobs = program.commands.find((c) => c.name() === 'jobs')!;
    expect(jobs.commands).toEqual([]);
    expect(wholeProgram(program).commands.map((c) => c.commands.length)).toEqual(
      commandTree().commands.map((c) => c.commands.length),
    );
  });

  it('adds the verbs of the noun that runs, and only those', async () => {
    const program = deferredTree();
    await expect(program.parseAsync(['jobs', '--help'], { from: 'user' })).rejects.toMatchObject({
      code: 'commander.helpDisplayed',
    });
    const verbs = Object.fromEntries(program.commands.map((c) => [c.name(), c.commands.length]));
    expect(verbs.jobs).toBeGreaterThan(0);
    expect(verbs.auth).toBe(0);
    expect(verbs.config).toBe(0);
  });

  it('on GitHub Actions, a usage error before the noun runs is still annotated with the whole command path', async () => {
    const r = await runCli('--timeout x jobs create rl', { env: { GITHUB_ACTIONS: 'true' } });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('::error title=aip jobs create rl::');
  });
});
