// aip doctor, the warning about a config file others can change (as ssh gives), and secrets in URLs
// masked in every message.

import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { nodeSupport } from '../../src/lib/node-support.js';
import { runCli, tempConfigDir } from '../helpers/cli.js';
import { useEmulator } from '../helpers/emulator.js';
import { closedPort } from '../helpers/ports.js';

const { emu } = useEmulator();

/** A config dir holding a profile with the emulator's key, in the modes given. */
function storedKey(dirMode: number, fileMode: number): string {
  const dir = tempConfigDir();
  writeFileSync(join(dir, 'config.json'), JSON.stringify({ profiles: { default: { 'api-key': emu.key } } }));
  chmodSync(join(dir, 'config.json'), fileMode);
  chmodSync(dir, dirMode);
  return dir;
}

const urls = () => {
  const { AIP_API_KEY: _key, ...rest } = emu.env;
  return rest;
};

type Row = { check: string; status: string; detail: string };

describe('aip doctor', () => {
  it('passes every check against a healthy setup, as a table and as JSON', async () => {
    const env = { ...emu.env, AIP_CONFIG_DIR: tempConfigDir(), AIP_PROJECT: 'local/demo' };
    const r = await runCli(['doctor'], { env });
    expect([r.code, r.stderr]).toEqual([0, '']);
    const json = await runCli(['doctor', '--json'], { env });
    const rows = JSON.parse(json.stdout) as Row[];
    expect(rows.map((row) => [row.check, row.status])).toEqual([
      // Node 20 works, past its end of life: a warning (src/lib/node-support.ts).
      ['node', nodeSupport().level === 'supported' ? 'ok' : 'warn'],
      ['config file', 'ok'],
      ['api key', 'ok'],
      ['project', 'ok'],
      ['training', 'ok'],
      ['inference', 'ok'],
      ['trace', 'ok'],
      ['clock', 'ok'],
      ['proxy', 'ok'],
    ]);
    expect(rows.find((row) => row.check === 'training')?.detail).toMatch(/key accepted$/);
    expect(r.stdout.split('\n').filter(Boolean)).toHaveLength(rows.length);
  });

  it('fails on a config others can change, a rejected key, an unreachable interface; warns on the rest', async () => {
    const dir = storedKey(0o777, 0o666);
    const env = {
      ...urls(),
      AIP_INFERENCE_URL: `http://127.0.0.1:${await closedPort()}/v1`,
      AIP_CONFIG_DIR: dir,
    };
    const r = await runCli(['--max-retries', '0', 'doctor', '--json'], { env });
    expect(r.code).toBe(1);
    const rows = JSON.parse(r.stdout) as Row[];
    const status = Object.fromEntries(rows.map((row) => [row.check, row.status]));
    expect(status).toMatchObject({
      'config directory': 'fail',
      project: 'warn',
      training: 'ok',
      inference: 'fail',
      proxy: 'ok',
    });
    expect(rows.filter((row) => row.check === 'config file').map((row) => row.detail)).toEqual([
      expect.stringMatching(/can be changed by group and others \(mode 0666\).*chmod 600/),
      expect.stringMatching(/holds an API key and can be read by others \(mode 0666\)/),
    ]);
    // The table says it: no warning besides, and one error line naming what failed.
    expect(r.stderr).toBe('error: doctor found 3 problems: config directory, config file, inference\n');
    chmodSync(dir, 0o700);
  });

  it('gives each interface its latency, and warns of a clock off by more than a minute from the server', async () => {
    // A Training API whose clock is ten minutes behind this machine's.
    const server = createServer((_req, res) => {
      res.sendDate = false;
      res.writeHead(200, {
        'content-type': 'application/json',
        date: new Date(Date.now() - 600_000).toUTCString(),
      });
      res.end('{"status":"ok"}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
      const env = { ...emu.env, AIP_CONFIG_DIR: tempConfigDir(), AIP_BASE_URL: base };
      const rows = JSON.parse((await runCli(['doctor', '--json'], { env })).stdout) as Row[];
      expect(rows.find((row) => row.check === 'clock')).toEqual({
        check: 'clock',
        status: 'warn',
        detail: expect.stringMatching(
          /^(599|600|601) s ahead of the training API's \(set the clock: time-stamped requests and TLS can fail\)$/,
        ),
      });
      expect(rows.find((row) => row.check === 'inference')?.detail).toMatch(
        /^http:\/\/127\.0\.0\.1:\d+\/inference\/v1\/models (ok|reachable) in [\d.]+ ms, key accepted$/,
      );
    } finally {
      server.close();
    }
  });

  it('names plain http to another machine, and sends the key nowhere', async () => {
    const env = { ...emu.env, AIP_CONFIG_DIR: tempConfigDir(), AIP_BASE_URL: 'http://platform.example/v1' };
    const r = await runCli(['doctor', '--json'], { env });
    expect(r.code).toBe(1);
    const rows = JSON.parse(r.stdout) as Row[];
    expect(rows.find((row) => row.check === 'training url')).toMatchObject({
      status: 'fail',
      detail: expect.stringMatching(/plain http to another machine: aip will not send the key there/),
    });
  });

  it('says when there is no key', async () => {
    const r = await runCli(['doctor', '--json'], { env: { ...urls(), AIP_CONFIG_DIR: tempConfigDir() } });
    expect(r.code).toBe(1);
    expect((JSON.parse(r.stdout) as Row[]).find((row) => row.check === 'api key')).toMatchObject({
      status: 'fail',
      detail: expect.stringMatching(/aip auth login/),
    });
  });
});

describe('a config file or directory others can change', () => {
  it('gets a warning on every command that reads it, as ssh gives; a private one none', async () => {
    for (const [dirMode, fileMode, expected] of [
      [0o700, 0o600, []],
      [0o700, 0o620, [/config file .* can be changed by group \(mode 0620\)/]],
      [0o757, 0o600, [/config directory .* can be changed by others \(mode 0757\)/]],
      [0o700, 0o644, [/holds an API key and can be read by others/]],
      [0o1777, 0o600, []],
    ] as const) {
      const dir = storedKey(dirMode, fileMode);
      const r = await runCli(['config', 'get', 'base-url'], { env: { ...urls(), AIP_CONFIG_DIR: dir } });
      expect(r.code).toBe(0);
      const warnings = r.stderr.split('\n').filter(Boolean);
      expect([dirMode.toString(8), fileMode.toString(8), warnings.length]).toEqual([
        dirMode.toString(8),
        fileMode.toString(8),
        expected.length,
      ]);
      expected.forEach((pattern, i) => {
        expect(warnings[i]).toMatch(/^warning: /);
        expect(warnings[i]).toMatch(pattern);
      });
      chmodSync(dir, 0o700);
    }
  });
});

describe('secrets in URLs', () => {
  it('are masked in every message: usage errors, warnings, --debug', async () => {
    const dir = tempConfigDir();
    const cases: string[][] = [
      ['--base-url', 'http://alice:s3cr3t-pass@example.com/v1', 'health'],
      ['--trace-url', 'https://bob:s3cr3t-pass@trace.example', 'health'],
      ['config', 'set', 'base-url', 'https://carol:s3cr3t-pass@example.com/v1'],
      ['--base-url', 'https://example.com/v1?api_key=s3cr3t-pass', 'health'],
    ];
    for (const argv of cases) {
      const r = await runCli(argv, { env: { ...emu.env, AIP_CONFIG_DIR: dir } });
      expect([argv.join(' '), r.code]).toEqual([argv.join(' '), 2]);
      expect(r.stderr).not.toContain('s3cr3t-pass');
      // Where the message quotes the URL, it is there masked.
      if (r.stderr.includes('://')) expect(r.stderr).toMatch(/:\/\/(alice|bob):\*\*\*\*@|api_key=\*\*\*\*/);
    }
    mkdirSync(join(dir, 'x'), { recursive: true });
    const model = await runCli(
      ['models', 'create', '--name', 'm', '--base-model', 'OpenPipe/Qwen3-14B-Instruct', '-q'],
      {
        env: { ...emu.env, AIP_CONFIG_DIR: dir, AIP_PROJECT: 'local/demo' },
      },
    );
    const sft = await runCli(
      [
        'jobs',
        'create',
        'sft',
        '--model',
        'm',
        '--data-url',
        'https://dave:s3cr3t-pass@data.example/train.jsonl?sig=s3cr3t-sig',
        '--dry-run',
      ],
      { env: { ...emu.env, AIP_CONFIG_DIR: dir } },
    );
    expect(model.code).toBe(0);
    // The warning about a URL that is not an artifact names it, masked; the request (stdout) is the data asked for.
    expect(sft.stderr).toMatch(/dave:\*\*\*\*@data\.example\/train\.jsonl\?sig=\*\*\*\*/);
    expect(sft.stderr).not.toMatch(/s3cr3t/);
  });
});
