// aip __complete, what the completion scripts ask on every TAB: its answer for each kind of word
// (subcommands, flags, choices, values from the local state, files), and that it stays silent, reads
// only, and never fails. The real shells driving it are in completion.test.ts.

import { chmodSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import type { Transport } from '../../src/api/transport.js';
import { type ValueKind, valueKindOf } from '../../src/commands/value-kinds.js';
import { wholeProgram } from '../../src/program.js';
import { commandTree, runCli, tempConfigDir, words } from '../helpers/cli.js';
import { writeCompletionFixture } from '../helpers/completion.js';
import { useEmulator } from '../helpers/emulator.js';

/** The answer to `aip __complete -- <line>` (a trailing space: the word being completed is empty). */
async function complete(line: string, env: Record<string, string> = {}) {
  const typed = words(line);
  if (line.endsWith(' ') || line === '') typed.push('');
  const r = await runCli(['__complete', '--', ...typed], { env });
  expect(r.code).toBe(0);
  expect(r.stderr).toBe('');
  const lines = r.stdout.split('\n').filter(Boolean);
  return {
    lines,
    values: lines.filter((l) => !l.startsWith(':')).map((l) => l.split('\t')[0]!),
    described: Object.fromEntries(lines.filter((l) => l.includes('\t')).map((l) => l.split('\t'))),
    directive: lines.at(-1),
  };
}

describe('aip __complete: commands and flags', () => {
  it('offers the subcommands, and no flags, after a noun', async () => {
    const r = await complete('jobs ');
    expect(r.values).toEqual(['create', 'validate', 'get', 'wait', 'list', 'forget']);
    expect(r.described.get).toMatch(/^the job and its state/);
    expect(r.directive).toBe(':values');
  });

  it('offers flags only for a word that starts with "-": "--" the long ones, the global ones too', async () => {
    const long = await complete('jobs list --');
    expect(long.values).toEqual(
      expect.arrayContaining(['--model', '--state', '--json', '--profile', '--help']),
    );
    expect(long.values.filter((v) => !v.startsWith('--'))).toEqual([]);
    expect(long.described['--state']).toBe('only the jobs in this state');
    const short = await complete('jobs list -');
    expect(short.values).toEqual(expect.arrayContaining(['-q', '--quiet', '-y', '-h']));
    // -V goes before any command only.
    expect(short.values).not.toContain('-V');
    expect((await complete('-')).values).toEqual(expect.arrayContaining(['-V', '--version']));
  });

  it('narrows to the word typed, and never offers itself', async () => {
    expect((await complete('emulator s')).values).toEqual(['stop', 'status']);
    expect((await complete('__')).values).toEqual([]);
    expect((await complete('')).values).not.toContain('__complete');
  });

  it('follows the command line as commander parses it: option values skipped, -- ends the flags', async () => {
    expect((await complete('--profile local --json jobs ')).values).toContain('get');
    expect((await complete('--timeout 5 config get ')).values).toContain('base-url');
    // "get" is the value of --model here, not a subcommand.
    expect((await complete('jobs list --model get --s')).values).toEqual(['--state']);
    expect((await complete('traces exec -- -')).values).toEqual([]);
  });
});

describe('aip __complete: values', () => {
  it('offers the choices of options and arguments', async () => {
    expect((await complete('chat --api ')).values).toEqual(['inference', 'training']);
    expect((await complete('--ci ')).values).toEqual(['github', 'none']);
    expect((await complete('jobs list --state f')).values).toEqual(['failed']);
    expect((await complete('config set ')).values).toEqual([
      'project',
      'base-url',
      'inference-url',
      'trace-url',
      'default-model',
      'output',
    ]);
    expect((await complete('completion ')).values).toEqual(['bash', 'zsh', 'fish']);
    expect((await complete('--ci=n')).values).toEqual(['--ci=none']);
  });

  it('offers the built-in profiles and those in the config file', async () => {
    const dir = writeCompletionFixture();
    const r = await complete('--profile ', { AIP_CONFIG_DIR: dir });
    expect(r.values).toEqual(['default', 'local', 'forge', 'staging']);
    expect(r.described).toMatchObject({ local: 'built in', staging: 'in the config file' });
    expect((await complete('--profile=st', { AIP_CONFIG_DIR: dir })).values).toEqual(['--profile=staging']);
    expect((await complete('jobs get --profile ', { AIP_CONFIG_DIR: dir })).values).toContain('staging');
  });

  it("offers the job ids of the profile's base URL, newest first, each with its model and state", async () => {
    const dir = writeCompletionFixture();
    for (const verb of ['jobs get', 'jobs wait', 'jobs forget', 'events']) {
      const r = await complete(`${verb} `, { AIP_CONFIG_DIR: dir });
      expect([verb, r.lines]).toEqual([
        verb,
        [
          'bbbb2222-0000-4000-8000-000000000002\tsft team/proj/agent-001, created 2025-02-01 10:20',
          'aaaa1111-0000-4000-8000-000000000001\trl team/proj/agent-001, succeeded',
          ':values',
        ],
      ]);
    }
    expect((await complete('jobs get a', { AIP_CONFIG_DIR: dir })).values).toEqual([
      'aaaa1111-0000-4000-8000-000000000001',
    ]);
    // Those already given to a variadic argument are not offered again.
    expect(
      (await complete('jobs forget bbbb2222-0000-4000-8000-000000000002 ', { AIP_CONFIG_DIR: dir })).values,
    ).toEqual(['aaaa1111-0000-4000-8000-000000000001']);
    // The emulator's job, remembered against the local profile's base URL.
    expect((await complete('--profile local jobs get ', { AIP_CONFIG_DIR: dir })).values).toEqual([
      'cccc3333-0000-4000-8000-000000000003',
    ]);
  });

  it('offers model names, each as short as it is unique; chat adds the default-model setting', async () => {
    const dir = writeCompletionFixture();
    const env = { AIP_CONFIG_DIR: dir };
    for (const line of ['checkpoints list ', 'models delete ', 'models log ', 'jobs create rl --model ']) {
      expect([line, (await complete(line, env)).values]).toEqual([
        line,
        ['proj/agent-001', 'other/agent-001', 'solo'],
      ]);
    }
    const chat = await complete('chat -m ', env);
    expect(chat.values).toEqual(['openai/gpt-oss-20b', 'proj/agent-001', 'other/agent-001', 'solo']);
    expect(chat.described).toMatchObject({
      'openai/gpt-oss-20b': 'the default-model setting',
      solo: 'team/proj/solo, from OpenPipe/Qwen3-14B-Instruct',
    });
    expect((await complete('chat "a prompt" --model s', env)).values).toEqual(['solo']);
    expect((await complete('--profile local checkpoints list ', env)).values).toEqual(['emu-model']);
  });

  it('asks the shell for files where a file is expected, and only there', async () => {
    for (const line of [
      'traces send ',
      'jobs validate rl ',
      'jobs create rl --file ',
      'jobs create sft --config ',
      'models log agent --file ',
      'chat --continue ',
      'traces generate -o ',
    ]) {
      expect([line, (await complete(line)).lines]).toEqual([line, [':files']]);
    }
    expect((await complete('emulator --state-dir ')).lines).toEqual([':directories']);
    for (const line of ['chat ', 'jobs get ', 'config set output ', 'models create --name ', 'jobs ']) {
      expect([line, (await complete(line)).directive]).toEqual([line, ':values']);
    }
    expect((await complete('chat ')).lines).toEqual([':values']);
  });
});

describe('aip __complete: silent, read-only, never failing', () => {
  it('prints nothing and exits 0 when the local record or the config file is damaged', async () => {
    const dir = tempConfigDir();
    writeFileSync(join(dir, 'jobs.json'), '{ not json');
    writeFileSync(join(dir, 'models.json'), '{"models": "no"}');
    expect((await complete('jobs get ', { AIP_CONFIG_DIR: dir })).lines).toEqual([]);
    expect((await complete('chat -m ', { AIP_CONFIG_DIR: dir })).lines).toEqual([]);
    writeFileSync(join(dir, 'config.json'), '[]');
    expect((await complete('--profile ', { AIP_CONFIG_DIR: dir })).lines).toEqual([]);
    // A bad profile name, an unknown profile: nothing either.
    const fixture = { AIP_CONFIG_DIR: writeCompletionFixture() };
    expect((await complete('--profile "a b" jobs get ', fixture)).lines).toEqual([]);
    expect((await complete('--profile nosuch jobs get ', fixture)).lines).toEqual([]);
    // The words that need no file are still answered.
    expect((await complete('jobs ', { AIP_CONFIG_DIR: dir })).values).toContain('get');
  });

  it('never warns, writes or sends: a config file open to others is read without a word', async () => {
    const dir = writeCompletionFixture();
    writeFileSync(
      join(dir, 'config.json'),
      JSON.stringify({ profiles: { staging: { 'api-key': 'secret-key-1234' } } }),
    );
    chmodSync(join(dir, 'config.json'), 0o666);
    const before = readdirSync(dir).sort();
    const sent: string[] = [];
    const transport: Transport = async (request) => {
      sent.push(String(request.url));
      throw new Error('completion sends nothing');
    };
    for (const line of ['--profile ', 'jobs get ', 'chat -m ', 'health ', '']) {
      const r = await runCli(['__complete', '--', ...words(line), ''], {
        env: { AIP_CONFIG_DIR: dir, GITHUB_ACTIONS: 'true', AIP_API_KEY: 'env-key-5678' },
        transport,
      });
      expect([line, r.code, r.stderr]).toEqual([line, 0, '']);
      expect(r.stdout).not.toMatch(/::add-mask::|warning/);
    }
    expect(sent).toEqual([]);
    expect(readdirSync(dir).sort()).toEqual(before);
  });

  it('is hidden from help', async () => {
    expect((await runCli(['--help'])).stdout).not.toContain('__complete');
  });
});

/**
 * The kinds the completer once read from a table (commands/completion/value-kinds.ts) by command path
 * and flag or argument, kept as what the kinds declared on the flags must still give: a kind lost from
 * a flag, or given to another, fails below.
 */
const OPTION_VALUES = {
  'aip --profile': 'profile',
  'aip chat --model': 'chat-model',
  'aip chat --continue': 'file',
  'aip compare --report': 'file',
  'aip emulator --state-dir': 'directory',
  'aip emulator reset --state-dir': 'directory',
  'aip eval --model': 'model',
  'aip eval --reward': 'reward',
  'aip eval --report': 'file',
  'aip eval --rubric': 'file',
  'aip history list --job': 'job',
  'aip history list --model': 'model',
  'aip eval --save': 'file',
  'aip eval --tasks': 'file',
  'aip jobs create rl --model': 'model',
  'aip jobs create rl --file': 'file',
  'aip jobs create rl --config': 'file',
  'aip jobs create sft --model': 'model',
  'aip jobs create sft --file': 'file',
  'aip jobs create sft --config': 'file',
  'aip jobs create sft --experimental-config': 'file',
  'aip jobs list --model': 'model',
  'aip models log --file': 'file',
  'aip reward test --model': 'model',
  'aip reward test --replies': 'file',
  'aip reward test --reward': 'reward',
  'aip reward test --rubric': 'file',
  'aip reward test --tasks': 'file',
  'aip rollouts --model': 'model',
  'aip rollouts merge --output': 'file',
  'aip rollouts merge --tasks': 'file',
  'aip rollouts --reward': 'reward',
  'aip rollouts --rubric': 'file',
  'aip rollouts --tasks': 'file',
  'aip rollouts --output': 'file',
  'aip traces generate --output': 'file',
  'aip train rl --model': 'model',
  'aip train rl --reward': 'reward',
  'aip train rl --rubric': 'file',
  'aip train rl --tasks': 'file',
  'aip train rl --config': 'file',
  'aip train rl --run-dir': 'directory',
  'aip train rl --resume': 'directory',
} as const satisfies Record<string, ValueKind>;

const ARGUMENT_VALUES = {
  'aip checkpoints delete <model>': 'model',
  'aip checkpoints list <model>': 'model',
  'aip checkpoints prune <model>': 'model',
  'aip compare <source>': 'file',
  'aip events <job>': 'job',
  'aip jobs forget <job>': 'job',
  'aip jobs get <job>': 'job',
  'aip jobs validate rl <file>': 'file',
  'aip jobs validate sft <file>': 'file',
  'aip jobs wait <job>': 'job',
  'aip models delete <model>': 'model',
  'aip models forget <model>': 'model',
  'aip models log <model>': 'model',
  'aip rollouts merge <shard-file>': 'file',
  'aip traces send <file>': 'file',
} as const satisfies Record<string, ValueKind>;

describe('aip __complete: the kinds declared on the flags, read from the command tree', () => {
  const tree = wholeProgram(commandTree());
  const commands: Array<[string, Command]> = [];
  const walk = (command: Command, path: string) => {
    commands.push([path, command]);
    for (const sub of command.commands) walk(sub, `${path} ${sub.name()}`);
  };
  walk(tree, 'aip');

  it('names only options and arguments that exist', () => {
    const options = commands.flatMap(([path, c]) => c.options.map((o) => `${path} ${o.long}`));
    const args = commands.flatMap(([path, c]) => c.registeredArguments.map((a) => `${path} <${a.name()}>`));
    expect(Object.keys(OPTION_VALUES).filter((key) => !options.includes(key))).toEqual([]);
    expect(Object.keys(ARGUMENT_VALUES).filter((key) => !args.includes(key))).toEqual([]);
  });

  it('gives a kind to every option and argument that takes a file, a directory, a job or a model', () => {
    const untyped = commands.flatMap(([path, c]) => [
      ...c.options
        .filter((o) => /<(path|file|dir|model|job)>|\|file>/.test(o.flags) && !o.argChoices)
        .filter((o) => valueKindOf(o) === undefined)
        .map((o) => `${path} ${o.long}`),
      ...c.registeredArguments
        .filter((a) => /^(file|model|job)$/.test(a.name()))
        .filter((a) => valueKindOf(a) === undefined)
        .map((a) => `${path} <${a.name()}>`),
    ]);
    expect(untyped).toEqual([]);
  });

  it('declares on the flags and arguments exactly the kinds the table held, and no others', () => {
    const options = commands.flatMap(([path, c]) =>
      c.options.flatMap((o) => {
        const kind = valueKindOf(o);
        return kind ? [[`${path} ${o.long}`, kind] as const] : [];
      }),
    );
    const args = commands.flatMap(([path, c]) =>
      c.registeredArguments.flatMap((a) => {
        const kind = valueKindOf(a);
        return kind ? [[`${path} <${a.name()}>`, kind] as const] : [];
      }),
    );
    expect(Object.fromEntries(options)).toEqual(OPTION_VALUES);
    expect(Object.fromEntries(args)).toEqual(ARGUMENT_VALUES);
  });

  it('completes each option and argument of the table as its kind says', async () => {
    const env = { AIP_CONFIG_DIR: writeCompletionFixture() };
    // What each kind offers from the fixture (the tests above show each one for a line or two).
    const models = ['proj/agent-001', 'other/agent-001', 'solo'];
    const offered: Record<ValueKind, string[]> = {
      file: [':files'],
      directory: [':directories'],
      profile: ['default', 'local', 'forge', 'staging', ':values'],
      model: [...models, ':values'],
      'chat-model': ['openai/gpt-oss-20b', ...models, ':values'],
      job: ['bbbb2222-0000-4000-8000-000000000002', 'aaaa1111-0000-4000-8000-000000000001', ':values'],
      reward: ['exact', 'contains', 'regex', 'json-match', 'judge:', ':values'],
    };
    const answer = async (line: string) => (await complete(line, env)).lines.map((l) => l.split('\t')[0]);
    for (const [key, kind] of Object.entries(OPTION_VALUES)) {
      const line = `${key.replace(/^aip ?/, '')} `;
      expect([key, await answer(line)]).toEqual([key, offered[kind]]);
    }
    for (const [key, kind] of Object.entries(ARGUMENT_VALUES)) {
      // Each is its command's first argument.
      const line = `${key.replace(/^aip /, '').replace(/ <\w+>$/, '')} `;
      expect([key, await answer(line)]).toEqual([key, offered[kind]]);
    }
  });
});

describe('aip __complete: what aip remembers is what it offers', () => {
  const { run } = useEmulator();

  it('offers the model and the job just created against the emulator', async () => {
    const model = await run('models create --name agent --base-model OpenPipe/Qwen3-14B-Instruct -q');
    expect(model.code, model.stderr).toBe(0);
    const dir = tempConfigDir();
    const groups = join(dir, 'groups.jsonl');
    writeFileSync(groups, '{"trajectories": [{"reward": 1}, {"reward": 0}]}\n');
    const job = await run(words`jobs create rl --model agent --file ${groups} -q`);
    expect(job.code, job.stderr).toBe(0);
    const models = await run(['__complete', '--', 'checkpoints', 'list', '']);
    expect(models.stdout).toBe('agent\tlocal/demo/agent, from OpenPipe/Qwen3-14B-Instruct\n:values\n');
    const jobs = await run(['__complete', '--', 'jobs', 'get', '']);
    expect(jobs.stdout).toMatch(
      new RegExp(`^${job.stdout.trim()}\\trl local/demo/agent, created .+\\n:values\\n$`),
    );
  });
});
