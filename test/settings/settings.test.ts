import { chmodSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Transport, TransportRequest } from '../../src/api/transport.js';
import { runCli, tempConfigDir } from '../helpers/cli.js';

function writeConfig(dir: string, data: unknown): string {
  const file = join(dir, 'config.json');
  writeFileSync(file, typeof data === 'string' ? data : JSON.stringify(data));
  return file;
}

async function listSources(argv: string[], env: Record<string, string>) {
  const result = await runCli([...argv, 'config', 'list', '--sources', '--json'], { env });
  expect(result.stderr).toBe('');
  expect(result.code).toBe(0);
  return JSON.parse(result.stdout) as Record<string, { value: string | null; source: string }>;
}

describe('settings precedence: flag > env > profile > built-in default', () => {
  it('takes each value from the highest source that has one', async () => {
    const dir = tempConfigDir();
    writeConfig(dir, {
      profiles: {
        default: {
          project: 'cfg-team/cfg-proj',
          'base-url': 'https://cfg.example.com/v1',
          'inference-url': 'https://cfg-inf.example.com/v1',
          'default-model': 'cfg-model',
        },
      },
    });
    const env = {
      AIP_CONFIG_DIR: dir,
      AIP_PROJECT: 'env-team/env-proj',
      AIP_BASE_URL: 'https://env.example.com/v1',
    };
    const s = await listSources(['--project', 'flag-team/flag-proj'], env);
    expect(s.project).toEqual({ value: 'flag-team/flag-proj', source: 'flag --project' });
    expect(s['base-url']).toEqual({ value: 'https://env.example.com/v1', source: 'env AIP_BASE_URL' });
    expect(s['inference-url']).toEqual({
      value: 'https://cfg-inf.example.com/v1',
      source: 'config profile default',
    });
    expect(s['default-model']).toEqual({ value: 'cfg-model', source: 'config profile default' });
    expect(s['trace-url']).toEqual({ value: 'https://trace.wandb.ai', source: 'default' });
    expect(s.output).toEqual({ value: 'table', source: 'default' });
  });

  it('uses the built-in local profile, which a stored profile of the same name overrides value by value', async () => {
    const dir = tempConfigDir();
    let s = await listSources(['--profile', 'local'], { AIP_CONFIG_DIR: dir });
    expect(s['base-url']).toEqual({
      value: 'http://127.0.0.1:4010/training/v1',
      source: 'built-in profile local',
    });
    expect(s['inference-url']?.value).toBe('http://127.0.0.1:4010/inference/v1');
    expect(s['trace-url']?.value).toBe('http://127.0.0.1:4010/trace');

    writeConfig(dir, { profiles: { local: { 'base-url': 'http://127.0.0.1:5999/training/v1' } } });
    s = await listSources([], { AIP_CONFIG_DIR: dir, AIP_PROFILE: 'local' });
    expect(s['base-url']).toEqual({
      value: 'http://127.0.0.1:5999/training/v1',
      source: 'config profile local',
    });
    expect(s['inference-url']?.source).toBe('built-in profile local');
  });

  it('has a built-in forge profile: CoreWeave Forge for training, the default hosts for the rest', async () => {
    const env = { AIP_CONFIG_DIR: tempConfigDir() };
    const get = await runCli(['--profile', 'forge', 'config', 'get', 'base-url'], { env });
    expect(get.stderr).toBe('');
    expect(get.stdout).toBe('https://forge.coreweave.com/api/training/v1\n');
    const s = await listSources(['--profile', 'forge'], env);
    expect(s['base-url']).toEqual({
      value: 'https://forge.coreweave.com/api/training/v1',
      source: 'built-in profile forge',
    });
    expect(s['inference-url']).toEqual({ value: 'https://api.inference.wandb.ai/v1', source: 'default' });
    expect(s['trace-url']).toEqual({ value: 'https://trace.wandb.ai', source: 'default' });
    // No key of its own: unlike local's, a real platform's key is the user's to give.
    expect(s.project).toEqual({ value: null, source: 'unset' });
    const profiles = await runCli(['--profile', 'forge', 'config', 'profiles'], { env });
    expect(profiles.stdout.split('\n')).toContain('*\tforge\tbuilt-in\t');

    // A request made through the profile goes to Forge (captured, not sent).
    const requests: TransportRequest[] = [];
    const transport: Transport = async (request) => {
      requests.push(request);
      const body = Buffer.from('{"status":"ok"}');
      return {
        status: 200,
        statusText: 'OK',
        headers: { 'content-type': 'application/json' },
        body,
        elapsedMs: 0,
      };
    };
    const check = await runCli(['--profile', 'forge', 'system-check', '--json'], { env, transport });
    expect(check.code).toBe(0);
    expect(requests.map((r) => `${r.method} ${r.url}`)).toEqual([
      'GET https://forge.coreweave.com/api/training/v1/system-check',
    ]);
  });

  it('without --sources prints plain values, and a TSV table when piped', async () => {
    const env = { AIP_CONFIG_DIR: tempConfigDir(), AIP_PROJECT: 'a/b' };
    const json = await runCli(['config', 'list', '--json'], { env });
    expect(JSON.parse(json.stdout)).toMatchObject({ project: 'a/b', 'default-model': null });
    const piped = await runCli(['config', 'list', '--sources'], { env });
    expect(piped.stdout.split('\n')).toContain('project\ta/b\tenv AIP_PROJECT');
    const tty = await runCli(['config', 'list'], { env: { ...env, NO_COLOR: '1' }, stdoutTTY: true });
    expect(tty.stdout.split('\n').slice(0, 2)).toEqual(['KEY            VALUE', 'project        a/b']);
  });

  it('rejects an invalid value from the environment, naming the variable', async () => {
    const r = await runCli(['config', 'get', 'base-url'], { env: { AIP_BASE_URL: 'ftp://x' } });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('error: AIP_BASE_URL: expected an http:// or https:// URL, got "ftp:"\n');
  });

  it('reports an unknown profile instead of silently using defaults', async () => {
    const r = await runCli(['--profile', 'stagign', 'config', 'get', 'project'], {});
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^error: profile "stagign" does not exist in .*config\.json: create it with/);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
  });
});

describe('config set / get / unset / path / profiles', () => {
  it('stores a setting in the profile and reads it back', async () => {
    const env = { AIP_CONFIG_DIR: tempConfigDir() };
    const set = await runCli(['config', 'set', 'project', 'my-team/my-proj'], { env });
    expect(set.code).toBe(0);
    expect(set.stderr).toBe('Set project to my-team/my-proj in profile "default"\n');
    expect(set.stdout).toBe('');
    const get = await runCli(['config', 'get', 'project'], { env });
    expect(get.stdout).toBe('my-team/my-proj\n');
    const getJson = await runCli(['config', 'get', 'project', '--json'], { env });
    expect(JSON.parse(getJson.stdout)).toEqual({
      key: 'project',
      value: 'my-team/my-proj',
      source: 'config profile default',
    });
    const unset = await runCli(['config', 'unset', 'project'], { env });
    expect(unset.stderr).toBe('Unset project in profile "default"\n');
    expect((await runCli(['config', 'get', 'project'], { env })).stdout).toBe('');
  });

  it('creates a new profile on set, and lists it', async () => {
    const env = { AIP_CONFIG_DIR: tempConfigDir() };
    await runCli(['--profile', 'staging', 'config', 'set', 'base-url', 'https://staging.example.com/v1/'], {
      env,
    });
    const get = await runCli(['--profile', 'staging', 'config', 'get', 'base-url'], { env });
    expect(get.stdout).toBe('https://staging.example.com/v1\n');
    const profiles = await runCli(['config', 'profiles', '--json'], { env });
    expect(JSON.parse(profiles.stdout)).toEqual([
      { name: 'default', active: true, builtin: true, stored: false, key_stored: false, key_storage: null },
      { name: 'local', active: false, builtin: true, stored: false, key_stored: false, key_storage: null },
      { name: 'forge', active: false, builtin: true, stored: false, key_stored: false, key_storage: null },
      { name: 'staging', active: false, builtin: false, stored: true, key_stored: false, key_storage: null },
    ]);
  });

  it('checks values before writing anything', async () => {
    const dir = tempConfigDir();
    for (const [key, value, message] of [
      ['project', 'no-slash', 'expected team/project, got "no-slash"'],
      ['base-url', 'not a url', 'not a URL: "not a url"'],
      ['output', 'yaml', 'expected one of table, json, got "yaml"'],
      ['inference-url', 'https://user:pw@example.com/v1', 'a URL must not carry credentials'],
    ] as const) {
      const r = await runCli(['config', 'set', key, value], { env: { AIP_CONFIG_DIR: dir } });
      expect(r.code).toBe(2);
      expect(r.stderr).toBe(`error: invalid value for ${key}: ${message}\n`);
    }
    expect(() => statSync(join(dir, 'config.json'))).toThrow();
  });

  it('warns about a base URL without /v1 and about an environment override', async () => {
    const env = { AIP_CONFIG_DIR: tempConfigDir(), AIP_BASE_URL: 'https://env.example.com/v1' };
    const r = await runCli(['config', 'set', 'base-url', 'https://x.example.com'], { env });
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('warning: "https://x.example.com" does not end in /v1');
    expect(r.stderr).toContain('warning: AIP_BASE_URL is set in the environment and overrides this value');
  });

  it('rejects an unknown key as a usage error', async () => {
    const r = await runCli(['config', 'set', 'colour', 'blue'], {});
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^error: command-argument value 'colour' is invalid for argument 'key'/);
  });

  it('prints the config path, which AIP_CONFIG_DIR moves', async () => {
    const dir = tempConfigDir();
    const r = await runCli(['config', 'path'], { env: { AIP_CONFIG_DIR: dir } });
    expect(r.stdout).toBe(`${join(dir, 'config.json')}\n`);
    const xdg = await runCli(['config', 'path'], { env: { AIP_CONFIG_DIR: '', XDG_CONFIG_HOME: '/xdg' } });
    expect(xdg.stdout).toBe('/xdg/aip/config.json\n');
  });
});

describe('the config file', () => {
  it('is written with mode 0600, in a 0700 directory, even over an older 0644 file', async () => {
    const dir = join(tempConfigDir(), 'nested');
    await runCli(['config', 'set', 'project', 'a/b'], { env: { AIP_CONFIG_DIR: dir } });
    expect(statSync(join(dir, 'config.json')).mode & 0o777).toBe(0o600);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    chmodSync(join(dir, 'config.json'), 0o644);
    await runCli(['config', 'set', 'project', 'c/d'], { env: { AIP_CONFIG_DIR: dir } });
    expect(statSync(join(dir, 'config.json')).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8'))).toEqual({
      profiles: { default: { project: 'c/d' } },
    });
  });

  it('when corrupt gives a one-line error naming the file, and is never overwritten', async () => {
    for (const content of [
      '{"profiles": {',
      '[1,2]',
      '{"profiles": {"default": {"project": 3}}}',
      '{"profiles": []}',
    ]) {
      const dir = tempConfigDir();
      const file = writeConfig(dir, content);
      for (const argv of [
        ['config', 'list'],
        ['config', 'set', 'project', 'a/b'],
        ['auth', 'status'],
      ]) {
        const r = await runCli(argv, { env: { AIP_CONFIG_DIR: dir } });
        expect(r.code).toBe(2);
        expect(r.stderr).toMatch(new RegExp(`^error: config file ${file} .*: fix it by hand or delete it`));
        expect(r.stderr.trim().split('\n')).toHaveLength(1);
        expect(readFileSync(file, 'utf8')).toBe(content);
      }
    }
  });

  it('is not needed at all when the environment supplies the key (CI)', async () => {
    const dir = join(tempConfigDir(), 'absent');
    const r = await runCli(['auth', 'token'], {
      env: { AIP_CONFIG_DIR: dir, AIP_API_KEY: 'ci-key-1234567890abcdef' },
    });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('ci-key-1234567890abcdef\n');
    expect(() => statSync(dir)).toThrow();
  });

  it('is reported, not crashed on, when unreadable', async () => {
    const dir = tempConfigDir();
    mkdirSync(join(dir, 'config.json'));
    const r = await runCli(['config', 'list'], { env: { AIP_CONFIG_DIR: dir } });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`error: cannot read config file ${join(dir, 'config.json')}: EISDIR\n`);
  });
});
