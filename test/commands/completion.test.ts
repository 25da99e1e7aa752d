// aip completion: the scripts, driven by the real shells' own completion machinery (bash always; zsh
// and fish where installed, as they are in CI), each asking the built aip (`aip __complete`, whose
// answers complete.test.ts checks in detail) on every TAB.

import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, tempConfigDir } from '../helpers/cli.js';
import { bashOffers, fishOffers, has, writeCompletionFixture, zshOffers } from '../helpers/completion.js';
import { patience } from '../helpers/patience.js';

async function script(shell: string): Promise<string> {
  const r = await runCli(['completion', shell], {});
  expect(r.code).toBe(0);
  expect(r.stderr).toBe('');
  return r.stdout;
}

/** A directory holding a file with a space in its name and a subdirectory. */
function filesDir(): string {
  const dir = tempConfigDir();
  writeFileSync(join(dir, 'spans one.jsonl'), '');
  mkdirSync(join(dir, 'sub'));
  return dir;
}

const JOB_A = 'aaaa1111-0000-4000-8000-000000000001';
const JOB_B = 'bbbb2222-0000-4000-8000-000000000002';

/**
 * Each TAB below runs a shell and, from it, the built aip: 0.1–0.3 s on a quiet machine, 3–5 s on a busy
 * one (test/helpers/patience.ts), and a test presses it up to eleven times.
 */
const SHELL_TESTS_MS = patience(180_000);

describe('aip completion', { timeout: SHELL_TESTS_MS }, () => {
  it('bash: completes nouns, verbs, argument choices and flags from the command tree', async () => {
    const source = await script('bash');
    const dir = tempConfigDir();
    const bashComplete = (s: string, line: string) => bashOffers(s, dir, line);
    expect(bashComplete(source, 'aip ')).toEqual(
      expect.arrayContaining(['auth', 'config', 'health', 'system-check', 'emulator', 'completion', 'help']),
    );
    expect(bashComplete(source, 'aip au')).toEqual(['auth']);
    expect(bashComplete(source, 'aip auth ')).toEqual(
      expect.arrayContaining(['login', 'status', 'logout', 'token']),
    );
    expect(bashComplete(source, 'aip auth login --w')).toEqual(['--with-key']);
    expect(bashComplete(source, 'aip --profile local config get ')).toEqual(
      expect.arrayContaining([
        'project',
        'base-url',
        'inference-url',
        'trace-url',
        'default-model',
        'output',
      ]),
    );
    expect(bashComplete(source, 'aip emulator s')).toEqual(['stop', 'status']);
    expect(bashComplete(source, 'aip health --js')).toEqual(['--json', '--jsonl']);
    expect(bashComplete(source, 'aip completion ')).toEqual(expect.arrayContaining(['bash', 'zsh', 'fish']));
  });

  it('bash: subcommands before flags, and values: profiles, models, job ids, choices', async () => {
    const source = await script('bash');
    const dir = writeCompletionFixture();
    const offers = (line: string) => bashOffers(source, dir, line);
    expect(offers('aip jobs ')).toEqual(['create', 'validate', 'get', 'wait', 'list', 'forget']);
    expect(offers('aip --profile ')).toEqual(['default', 'local', 'forge', 'staging']);
    // bash splits "--profile=st" at "=": the value alone replaces the word.
    expect(offers('aip --profile=st')).toEqual(['staging']);
    expect(offers('aip --profile=')).toEqual(['default', 'local', 'forge', 'staging']);
    expect(offers('aip chat -m ')).toEqual([
      'openai/gpt-oss-20b',
      'proj/agent-001',
      'other/agent-001',
      'solo',
    ]);
    expect(offers("aip chat 'a prompt' -m s")).toEqual(['solo']);
    expect(offers('aip checkpoints list ')).toEqual(['proj/agent-001', 'other/agent-001', 'solo']);
    expect(offers('aip jobs get ')).toEqual([JOB_B, JOB_A]);
    expect(offers('aip --profile local jobs get ')).toEqual(['cccc3333-0000-4000-8000-000000000003']);
    expect(offers('aip chat --api ')).toEqual(['inference', 'training']);
    // Nothing at all where nothing is known (once, a literal "-" was inserted here).
    expect(offers('aip chat ')).toEqual([]);
  });

  it('bash: files where a file is expected, and not where one is not', async () => {
    const source = await script('bash');
    const dir = filesDir();
    const offers = (line: string) => bashOffers(source, tempConfigDir(), line, dir);
    expect(offers('aip traces send ').sort()).toEqual(['spans one.jsonl', 'sub']);
    expect(offers('aip jobs create rl --model m --file sp')).toEqual(['spans one.jsonl']);
    expect(offers('aip emulator --state-dir ')).toEqual(['sub']);
    expect(offers('aip jobs get ')).toEqual([]);
    expect(offers('aip config set project ')).toEqual([]);
  });

  it.runIf(has('zsh'))('zsh: is valid zsh', async () => {
    const file = join(tempConfigDir(), '_aip');
    writeFileSync(file, await script('zsh'));
    const r = spawnSync('zsh', ['-n', file], { encoding: 'utf8' });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
  });

  it.runIf(has('zsh'))('zsh: describes each command, and each job, model and profile', async () => {
    const source = await script('zsh');
    expect(source.startsWith('#compdef aip\n')).toBe(true);
    const lines = [
      'aip auth ',
      'aip auth login --w',
      'aip jobs ',
      'aip jobs get ',
      'aip chat -m ',
      'aip --profile ',
      'aip chat --api ',
      'aip traces send ',
      'aip emulator --state-dir ',
      'aip chat ',
      "aip chat 'a prompt' -m s",
    ];
    const [auth, login, jobs, jobIds, models, profiles, api, send, stateDir, prompt, quoted] = zshOffers(
      source,
      writeCompletionFixture(),
      lines,
    );
    expect(auth!.described.login).toBe(
      'store an API key for the profile, after checking it against the inference model list',
    );
    expect(login!.described['--with-key']).toBe(
      'read the key from stdin instead of prompting (never pass a key as an argument)',
    );
    expect(jobs!.values).toEqual(['create', 'validate', 'get', 'wait', 'list', 'forget']);
    expect(jobIds!.values).toEqual([JOB_B, JOB_A]);
    expect(jobIds!.described).toEqual({
      [JOB_A]: 'rl team/proj/agent-001, succeeded',
      [JOB_B]: 'sft team/proj/agent-001, created 2025-02-01 10:20',
    });
    expect(models!.values).toEqual(['openai/gpt-oss-20b', 'proj/agent-001', 'other/agent-001', 'solo']);
    expect(models!.described['openai/gpt-oss-20b']).toBe('the default-model setting');
    expect(profiles!.values).toEqual(['default', 'local', 'forge', 'staging']);
    expect(api!.values).toEqual(['inference', 'training']);
    expect([send!.files, stateDir!.files]).toEqual(['', '-/']);
    expect(jobIds!.files).toBeUndefined();
    expect([prompt!.values, prompt!.files]).toEqual([[], undefined]);
    expect(quoted!.values).toEqual(['solo']);
  });

  it.runIf(has('fish'))('fish: is valid fish and offers subcommands for a path', async () => {
    const file = join(tempConfigDir(), 'aip.fish');
    writeFileSync(file, await script('fish'));
    expect(spawnSync('fish', ['--no-execute', file], { encoding: 'utf8' }).status).toBe(0);
    expect(fishOffers(await script('fish'), tempConfigDir(), 'aip auth ').values).toEqual(
      expect.arrayContaining(['login', 'status', 'logout', 'token']),
    );
  });

  it.runIf(has('fish'))(
    'fish: values with their descriptions, and files only where a file is expected',
    async () => {
      const source = await script('fish');
      const dir = writeCompletionFixture();
      const offers = (line: string, cwd?: string) => fishOffers(source, dir, line, cwd);
      const jobs = offers('aip jobs get ');
      expect(jobs.values.sort()).toEqual([JOB_A, JOB_B]);
      expect(jobs.described).toEqual({
        [JOB_A]: 'rl team/proj/agent-001, succeeded',
        [JOB_B]: 'sft team/proj/agent-001, created 2025-02-01 10:20',
      });
      expect(offers('aip jobs ').values.sort()).toEqual([
        'create',
        'forget',
        'get',
        'list',
        'validate',
        'wait',
      ]);
      expect(offers('aip --profile ').described).toMatchObject({
        staging: 'in the config file',
        local: 'built in',
      });
      expect(offers('aip --profile=st').values).toEqual(['--profile=staging']);
      expect(offers('aip chat -m ').described).toMatchObject({
        'openai/gpt-oss-20b': 'the default-model setting',
      });
      expect(offers('aip chat "a prompt" -m \'so').values).toEqual(['solo']);
      expect(offers('aip checkpoints list ').values.sort()).toEqual([
        'other/agent-001',
        'proj/agent-001',
        'solo',
      ]);
      const files = filesDir();
      expect(offers('aip traces send ', files).values.sort()).toEqual(['spans one.jsonl', 'sub/']);
      expect(offers('aip emulator --state-dir ', files).values).toEqual(['sub/']);
      expect(offers('aip jobs get ', files).values).not.toContain('sub/');
      expect(offers('aip chat ', files).values).toEqual([]);
    },
  );
});

describe('aip help', () => {
  it('shows help for a command path, the same as --help', async () => {
    const viaHelp = await runCli(['help', 'auth', 'login'], {});
    const viaFlag = await runCli(['auth', 'login', '--help'], {});
    expect(viaHelp.code).toBe(0);
    expect(viaFlag.code).toBe(0);
    expect(viaHelp.stdout).toBe(viaFlag.stdout);
    expect(viaHelp.stdout).toContain('Usage: aip auth login [options]');
  });

  it('lists the environment variables', async () => {
    const r = await runCli(['help', 'environment'], {});
    for (const name of [
      'AIP_API_KEY',
      'WANDB_API_KEY',
      'AIP_PROFILE',
      'AIP_PROJECT',
      'AIP_BASE_URL',
      'AIP_INFERENCE_URL',
      'AIP_TRACE_URL',
      'AIP_CONFIG_DIR',
      'NO_COLOR',
    ]) {
      expect(r.stdout).toMatch(new RegExp(`^ {2}${name}`, 'm'));
    }
  });

  it('rejects an unknown topic with exit 2', async () => {
    const r = await runCli(['help', 'nonsense'], {});
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      'error: no help topic or command "nonsense": topics are exit-codes, environment; see aip --help for commands\n',
    );
  });

  it('gives every command an example', async () => {
    const commands: string[][] = [];
    const top = await runCli(['--help'], {});
    const nouns = [...top.stdout.matchAll(/^ {2}([a-z-]+) /gm)]
      .map((m) => m[1]!)
      .filter((n) => !n.startsWith('-'));
    expect(nouns.length).toBeGreaterThanOrEqual(7);
    for (const noun of nouns) {
      commands.push([noun]);
      const help = await runCli([noun, '--help'], {});
      const section = help.stdout.split('Commands:\n')[1]?.split('\n\n')[0] ?? '';
      for (const m of section.matchAll(/^ {2}([a-z-]+)/gm)) commands.push([noun, m[1]!]);
    }
    expect(commands.length).toBeGreaterThan(15);
    for (const command of commands) {
      const r = await runCli([...command, '--help'], {});
      expect([command.join(' '), r.code]).toEqual([command.join(' '), 0]);
      expect([command.join(' '), r.stdout]).toEqual([
        command.join(' '),
        expect.stringMatching(/\nExamples:\n {2}\$ .*aip /),
      ]);
    }
  });
});
