// Words that look like aip's own flags (-V, --version, -h, --help) where a command expects a value: as
// each positional argument and as each option's value, of every command of the tree. An option value is
// always that option's (checked like any other value: a bad one is a usage error, exit 2); after --, an
// argument is always an argument; -V/--version is the root's flag alone (aip --version), so after a
// command's name, where no value is expected, it is an unknown option (exit 2); -h/--help there is the
// command's help, as ever. Never the version or help (and exit 0) in place of a value.
//
// The cases are generated from the command tree (buildProgram), so a new command or option is covered
// without touching this file. The servers are one local stand-in that answers 404 to everything.

import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Argument, Command, Option } from 'commander';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commandTree, runCli } from './helpers/cli.js';
import { patience } from './helpers/patience.js';

const VERSION = (
  JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }
).version;
const FLAGS = ['-V', '--version', '-h', '--help'];
const VERSION_FLAGS = new Set(['-V', '--version']);

const root = mkdtempSync(join(tmpdir(), 'aip-arguments-'));
/** Stands in for every server: each request gets a 404 (no retries, no waits). */
const server = createServer((_req, res) => {
  res.writeHead(404, { 'content-type': 'application/json' }).end('{"detail": "Not Found"}');
});
let base = '';
beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  rmSync(root, { recursive: true, force: true });
});

/** Each run gets a config directory of its own (config set, auth login write to it). */
function env(): Record<string, string> {
  return {
    AIP_CONFIG_DIR: mkdtempSync(join(root, 'c')),
    AIP_API_KEY: 'x',
    AIP_BASE_URL: `${base}/v1`,
    AIP_INFERENCE_URL: `${base}/v1`,
    AIP_TRACE_URL: base,
  };
}

const run = (argv: string[]) => runCli(argv, { env: env() });

function tree(): Command {
  return commandTree();
}

/** Every command under the root, with its path of names. */
function commands(program: Command): Array<{ path: string[]; command: Command }> {
  const out: Array<{ path: string[]; command: Command }> = [];
  const walk = (command: Command, path: string[]) => {
    for (const sub of command.commands) {
      out.push({ path: [...path, sub.name()], command: sub });
      walk(sub, [...path, sub.name()]);
    }
  };
  walk(program, []);
  return out;
}

/** An ordinary value for an argument that is not the one under test. */
const ordinary = (argument: Argument) => argument.argChoices?.[0] ?? 'x';
const takesValue = (option: Option) => option.required || option.optional;

/**
 * Extra words that keep a command from running on once the words under test are parsed. The emulator,
 * traces serve and traces tail run until stopped, so an option value they accept (--api-key -V) would
 * start them: an invalid port or interval after it makes the run a usage error, after the value under
 * test has been taken.
 */
const STOP: Record<string, string[]> = {
  emulator: ['--port', 'none'],
  'traces serve': ['--port', 'none'],
  'traces tail': ['--interval', 'none'],
  // Serves until stdin closes (at once here: stdin is empty), but an argument it does not take ends it.
  mcp: ['no-argument'],
};

/**
 * What must happen: 'value', the word is taken as the value (the command may still refuse it, or fail
 * with its own error); 'unknown', -V/--version after a command's name is a usage error; 'help', the
 * command's help, exactly as `--help` gives it.
 */
type Expect = 'value' | 'unknown' | 'help';
interface Case {
  path: string[];
  argv: string[];
  expect: Expect;
}

function generate(): Case[] {
  const program = tree();
  const globals = program.options.filter(takesValue);
  const all: Case[] = [];
  for (const { path, command } of commands(program)) {
    const add = (argv: string[], expect: Expect) => all.push({ path, argv, expect });
    const args = command.registeredArguments;
    const stop = STOP[path.join(' ')] ?? [];
    const filled = args.map(ordinary);
    const options = command.options.filter((o) => takesValue(o) && !o.hidden);
    for (const flag of FLAGS) {
      const asFlag: Expect = VERSION_FLAGS.has(flag) ? 'unknown' : 'help';
      // Where no value is expected (right after the name) and (a) in each argument's place, the word
      // is a flag; after --, it is the argument.
      add([...path, flag], asFlag);
      args.forEach((_, i) => {
        const words = filled.map((w, j) => (j === i ? flag : w));
        add([...path, ...words], asFlag);
        add([...path, ...stop, '--', ...words], 'value');
      });
      // (b) The value of each of the command's options, and of each global option given after the
      // command's name and before it: as the next word (an option with a required value) and after =.
      for (const option of [...options, ...globals]) {
        const names = [option.long, option.short].filter((n): n is string => Boolean(n));
        if (option.required)
          for (const name of names) add([...path, ...filled, name, flag, ...stop], 'value');
        if (option.long) add([...path, ...filled, `${option.long}=${flag}`, ...stop], 'value');
      }
      for (const option of globals) add([option.long!, flag, ...path, ...filled, ...stop], 'value');
    }
  }
  return all;
}

const CASES = generate();
const isVersion = (stdout: string) => stdout.trim() === VERSION;
const isHelp = (stdout: string) => /^Usage: aip/m.test(stdout);

describe('flag-like words where values are expected, in every command', () => {
  it(`${CASES.length} cases, generated from the command tree`, () => {
    console.log(`program.test: ${CASES.length} cases`);
    expect(CASES.length).toBeGreaterThan(2000);
    for (const expected of ['value', 'unknown', 'help'] as const) {
      expect(CASES.filter((c) => c.expect === expected).length).toBeGreaterThan(100);
    }
  });

  const byNoun = new Map<string, Case[]>();
  for (const c of CASES) byNoun.set(c.path[0]!, [...(byNoun.get(c.path[0]!) ?? []), c]);
  for (const [noun, group] of byNoun) {
    it(`aip ${noun}: ${group.length} cases`, { timeout: patience(360_000) }, async () => {
      const helps = new Map<string, string>();
      const failures: string[] = [];
      for (const c of group) {
        const r = await run(c.argv);
        const seen = `aip ${c.argv.join(' ')} → exit ${r.code}, stdout ${JSON.stringify(r.stdout.slice(0, 60))}, stderr ${JSON.stringify(r.stderr.slice(0, 200))}`;
        if (c.expect === 'help') {
          const key = c.path.join(' ');
          if (!helps.has(key)) helps.set(key, (await run([...c.path, '--help'])).stdout);
          if (r.code !== 0 || !isHelp(r.stdout) || r.stdout !== helps.get(key))
            failures.push(`help: ${seen}`);
        } else if (isVersion(r.stdout) || isHelp(r.stdout)) {
          // Never the version or help in place of the value. (The command may take the value and
          // succeed, refuse it, or fail with its own error, such as the stand-in server's 404.)
          failures.push(`${c.expect}: ${seen}`);
        } else if (c.expect === 'unknown') {
          const flag = c.argv.find((w) => VERSION_FLAGS.has(w))!;
          if (r.code !== 2 || !r.stderr.startsWith(`error: unknown option '${flag}'`))
            failures.push(`unknown: ${seen}`);
        } else if (r.stderr.includes('unknown option')) {
          // A value is the option's or the argument's, never read again as an option.
          failures.push(`value: ${seen}`);
        }
      }
      expect(failures).toEqual([]);
    });
  }
});

describe('the rule, by example', () => {
  const UUID = '3f0c9a1e-7b2d-4c5e-9f10-1a2b3c4d5e6f';

  it('-V after a command is not the version: an unknown option there, a value after --', async () => {
    for (const argv of [
      ['checkpoints', 'list', '-V'],
      ['checkpoints', 'list', 'agent', '-V'],
    ]) {
      const r = await run(argv);
      expect(r).toMatchObject({ code: 2, stdout: '' });
      expect(r.stderr).toBe(
        `error: unknown option '-V' (aip --version prints the version; an argument that starts with "-" goes after --: aip checkpoints list -- -V)\n`,
      );
    }
    expect((await run(['jobs', '--version'])).stderr).toBe(
      "error: unknown option '--version' (aip --version prints the version)\n",
    );
    const value = await run(['checkpoints', 'list', '--', '-V']);
    expect(value.code).toBe(3);
    expect(value.stderr).toContain('unknown model "-V"');
  });

  it("an option's value is the option's, whatever it looks like", async () => {
    const limit = await run(['checkpoints', 'list', 'agent', '--limit', '-V']);
    expect(limit).toMatchObject({ code: 2, stdout: '' });
    expect(limit.stderr).toContain("error: option '--limit <n>' argument '-V' is invalid.");
    for (const flag of FLAGS) {
      const argv = ['jobs', 'create', 'sft', '--model', UUID, '--data-url', flag, '--dry-run'];
      const r = await run(argv);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toContain(`"training_data_url":"${flag}"`);
    }
  });

  it('asking for the version or help answers as before', async () => {
    for (const argv of [['-V'], ['--version'], ['--no-color', '--version'], ['--profile', 'local', '-V']]) {
      expect(await run(argv)).toMatchObject({ code: 0, stdout: `${VERSION}\n`, stderr: '' });
    }
    const top = await run(['--help']);
    expect(top.stdout).toMatch(/^Usage: aip \[options\] \[command\]/);
    expect(await run(['-h'])).toEqual(top);
    const jobs = await run(['jobs', '--help']);
    expect(jobs.stdout).toMatch(/^Usage: aip jobs \[options\] \[command\]/);
    expect(await run(['help', 'jobs'])).toEqual(jobs);
    const rl = await run(['jobs', 'create', 'rl', '--help']);
    expect(rl).toMatchObject({ code: 0, stderr: '' });
    expect(rl.stdout).toMatch(/^Usage: aip jobs create rl \[options\]/);
    expect(await run(['jobs', 'create', 'rl', '--model', 'm', '-h'])).toEqual(rl);
  });

  it('global options still work after the command, and -- still ends the options', async () => {
    const local = (argv: string[], dir = mkdtempSync(join(root, 'c'))) =>
      runCli(argv, { env: { AIP_CONFIG_DIR: dir } });
    // The local profile's URL, not the default one: --profile was taken wherever it stood.
    const before = await local(['--profile', 'local', 'config', 'get', 'base-url']);
    expect(before.stdout).toMatch(/^http:\/\/127\.0\.0\.1:4010\//);
    for (const argv of [
      ['config', '--profile', 'local', 'get', 'base-url'],
      ['config', 'get', 'base-url', '--profile', 'local'],
      ['config', 'get', '--profile=local', 'base-url', '--no-color', '-q'],
    ]) {
      expect(await local(argv)).toEqual(before);
    }
    const list = await local(['config', 'list', '--profile', 'local', '--json']);
    expect(`${JSON.parse(list.stdout)['base-url']}\n`).toBe(before.stdout);
    const dir = mkdtempSync(join(root, 'c'));
    for (const value of ['--json', '-V', '--help']) {
      expect((await local(['config', 'set', 'default-model', '--', value], dir)).code).toBe(0);
      expect((await local(['config', 'get', 'default-model'], dir)).stdout).toBe(`${value}\n`);
    }
  });
});
