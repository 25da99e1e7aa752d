import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, tempConfigDir } from '../helpers/cli.js';

function has(shell: string): boolean {
  return spawnSync('sh', ['-c', `command -v ${shell}`]).status === 0;
}

async function script(shell: string): Promise<string> {
  const r = await runCli(['completion', shell], {});
  expect(r.code).toBe(0);
  expect(r.stderr).toBe('');
  return r.stdout;
}

/** What bash would offer after typing `line` (the last word being completed). */
function bashComplete(source: string, line: string): string[] {
  const file = join(tempConfigDir(), 'aip.bash');
  writeFileSync(file, source);
  const words = line.split(' ');
  const program = `source ${file}
COMP_WORDS=(${words.map((w) => `'${w}'`).join(' ')}); COMP_CWORD=${words.length - 1}
_aip
printf '%s\\n' "\${COMPREPLY[@]}"`;
  const r = spawnSync('bash', ['-c', program], { encoding: 'utf8' });
  expect(r.stderr).toBe('');
  return r.stdout.split('\n').filter(Boolean);
}

describe('aip completion', () => {
  it('bash: completes nouns, verbs, argument choices and flags from the command tree', async () => {
    const source = await script('bash');
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

  it.runIf(has('zsh'))('zsh: is valid zsh', async () => {
    const file = join(tempConfigDir(), '_aip');
    writeFileSync(file, await script('zsh'));
    const r = spawnSync('zsh', ['-n', file], { encoding: 'utf8' });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
  });

  it('zsh: describes each command', async () => {
    const source = await script('zsh');
    expect(source.startsWith('#compdef aip\n')).toBe(true);
    expect(source).toContain(
      "'login:store an API key for the profile, after checking it against the inference model list'",
    );
    expect(source).toContain(
      "'--with-key:read the key from stdin instead of prompting (never pass a key as an argument)'",
    );
  });

  it.runIf(has('fish'))('fish: is valid fish and offers subcommands for a path', async () => {
    const file = join(tempConfigDir(), 'aip.fish');
    writeFileSync(file, await script('fish'));
    expect(spawnSync('fish', ['--no-execute', file], { encoding: 'utf8' }).status).toBe(0);
    const r = spawnSync('fish', ['-c', `source ${file}; complete -C 'aip auth '`], { encoding: 'utf8' });
    expect(r.stdout.split('\n').map((l) => l.split('\t')[0])).toEqual(
      expect.arrayContaining(['login', 'status', 'logout', 'token']),
    );
  });
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
