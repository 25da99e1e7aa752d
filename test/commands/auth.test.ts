import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startEmulator } from '../../src/emulator/index.js';
import { main } from '../../src/main.js';
import { runCli, tempConfigDir } from '../helpers/cli.js';
import { useEmulator } from '../helpers/emulator.js';
import { fakeIO } from '../helpers/io.js';
import { waitFor } from '../helpers/wait.js';

const { emu } = useEmulator();

/** The emulator's URLs, without its key: these tests decide where the key comes from. */
function urls(dir = tempConfigDir()): Record<string, string> {
  const { AIP_API_KEY: _key, ...rest } = emu.env;
  return { ...rest, AIP_CONFIG_DIR: dir };
}

function storedConfig(dir: string): { profiles: Record<string, Record<string, string>> } {
  return JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8'));
}

describe('auth login', () => {
  it('--with-key reads the key from stdin, verifies it, and stores it with mode 0600', async () => {
    const dir = tempConfigDir();
    const r = await runCli(['auth', 'login', '--with-key'], { env: urls(dir), stdin: `${emu.key}\n` });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('');
    // No keychain in the tests' environment (AIP_KEYRING=off): the file, with gh's plain-text warning.
    expect(r.stderr).toBe(
      `warning: Storing the key in plain text in ${join(dir, 'config.json')} (mode 0600): no keychain here: AIP_KEYRING=off\n` +
        `Logged in: key ****cdef saved to profile "default" in ${join(dir, 'config.json')} (accepted by ${emu.urls.inference}, 7 models)\n`,
    );
    expect(storedConfig(dir).profiles.default).toEqual({ 'api-key': emu.key });
    expect(statSync(join(dir, 'config.json')).mode & 0o777).toBe(0o600);
    const [verify] = await emu.requests({ path: '/inference/v1/models' });
    // The emulator records credentials by fingerprint only.
    expect(verify?.headers.authorization).toBe('Bearer ****cdef');
  });

  it('does not save a key the inference API rejects (exit 4)', async () => {
    const dir = tempConfigDir();
    const r = await runCli(['auth', 'login', '--with-key'], {
      env: urls(dir),
      stdin: 'not-the-right-key-000',
    });
    expect(r.code).toBe(4);
    expect(r.stderr).toMatch(
      new RegExp(
        `^error: the key was rejected by ${emu.urls.inference} and was not saved \\(Authentication failed .*\\); run 'aip auth login' or set AIP_API_KEY\\n$`,
      ),
    );
    expect(r.stderr).not.toContain('not-the-right-key-000');
    expect(() => statSync(join(dir, 'config.json'))).toThrow();
  });

  it('does not save a key it could not check (exit 1)', async () => {
    await emu.fault({ path: '/inference/v1/models', status: 503, times: 10 });
    const dir = tempConfigDir();
    const r = await runCli(['--max-retries', '1', 'auth', 'login', '--with-key'], {
      env: urls(dir),
      stdin: emu.key,
    });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /^warning: GET \/inference\/v1\/models: HTTP 503; retrying in 0\.4s \(retry 1 of 1\)\nerror: could not check the key, so it was not saved: /,
    );
    expect(() => statSync(join(dir, 'config.json'))).toThrow();
  });

  it('refuses empty or multi-word stdin, and never reads the key from argv', async () => {
    const empty = await runCli(['auth', 'login', '--with-key'], { env: urls(), stdin: '  \n' });
    expect(empty.code).toBe(2);
    expect(empty.stderr).toBe(
      'error: no key on stdin: pipe the key in, e.g. aip auth login --with-key < key.txt\n',
    );
    const two = await runCli(['auth', 'login', '--with-key'], { env: urls(), stdin: 'key-one\nkey-two\n' });
    expect(two.code).toBe(2);
    expect(two.stderr).toBe('error: stdin held more than one word: pipe exactly one API key\n');
    const argv = await runCli(['auth', 'login', '--with-key', emu.key], { env: urls() });
    expect(argv.code).toBe(2);
    expect(argv.stderr).toBe("error: too many arguments for 'login'. Expected 0 arguments but got 1.\n");
    expect(await emu.requests()).toEqual([]);
  });

  it('without --with-key needs a terminal, and prompting can be turned off', async () => {
    const piped = await runCli(['auth', 'login'], { env: urls(), stdin: emu.key });
    expect(piped.code).toBe(2);
    expect(piped.stderr).toBe('error: stdin is not a terminal: pipe the key to aip auth login --with-key\n');
    const noInput = await runCli(['--no-input', 'auth', 'login'], { env: urls(), stdinTTY: true });
    expect(noInput.code).toBe(2);
    expect(noInput.stderr).toBe(
      'error: no key given and prompting is off (--no-input): pipe the key to aip auth login --with-key\n',
    );
  });

  it('prompts on a terminal without echoing the key', async () => {
    const dir = tempConfigDir();
    const env = urls(dir);
    const { io, stdout, stderr, stdin } = fakeIO({ env, stdinTTY: true, stderrTTY: false });
    const done = main(['auth', 'login'], { env, io, sleep: async () => {} });
    await waitFor(() => stdin.isRaw === true);
    // Typed with a mistake, corrected with backspace; an arrow key's escape sequence is ignored.
    stdin.write(`${emu.key.slice(0, 10)}X\u007f\u001b[D`);
    stdin.write(`${emu.key.slice(10)}\r`);
    expect(await done).toBe(0);
    expect(stdin.isRaw).toBe(false);
    expect(stdout.text).toBe('');
    expect(stderr.text).toContain('API key: \n');
    expect(stderr.text).not.toContain(emu.key);
    expect(storedConfig(dir).profiles.default?.['api-key']).toBe(emu.key);
  });

  it('takes what was typed when the terminal closes before Enter, and refuses an empty key', async () => {
    for (const [typed, code] of [
      [emu.key, 0],
      ['', 2],
    ] as const) {
      const dir = tempConfigDir();
      const env = urls(dir);
      const { io, stdin, stderr } = fakeIO({ env, stdinTTY: true });
      const done = main(['auth', 'login'], { env, io });
      await waitFor(() => stdin.isRaw === true);
      stdin.end(typed);
      expect(await done).toBe(code);
      if (code === 2) expect(stderr.text).toContain('error: no key entered\n');
    }
  });

  it('exits 130 on Ctrl-C at the prompt and stores nothing', async () => {
    const dir = tempConfigDir();
    const env = urls(dir);
    const { io, stdin } = fakeIO({ env, stdinTTY: true });
    const done = main(['auth', 'login'], { env, io });
    await waitFor(() => stdin.isRaw === true);
    stdin.write('abc\u0003');
    expect(await done).toBe(130);
    expect(stdin.isRaw).toBe(false);
    expect(() => statSync(join(dir, 'config.json'))).toThrow();
  });

  it('stores the key in the chosen profile, creating it', async () => {
    const dir = tempConfigDir();
    const r = await runCli(['--profile', 'work', 'auth', 'login', '--with-key'], {
      env: urls(dir),
      stdin: emu.key,
    });
    expect(r.code).toBe(0);
    expect(storedConfig(dir).profiles).toEqual({ work: { 'api-key': emu.key } });
  });
});

describe('auth status', () => {
  it('shows the masked key, its source and each API accepting it', async () => {
    const dir = tempConfigDir();
    await runCli(['auth', 'login', '--with-key'], { env: urls(dir), stdin: emu.key });
    const r = await runCli(['auth', 'status', '--json'], { env: { ...urls(dir), AIP_PROJECT: 'team/proj' } });
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    expect(JSON.parse(r.stdout)).toEqual({
      profile: 'default',
      profile_source: 'default',
      config_file: join(dir, 'config.json'),
      api_key: {
        masked: '****cdef',
        fingerprint: '****cdef',
        source: 'config profile default',
        storage: 'file',
      },
      project: { value: 'team/proj', source: 'env AIP_PROJECT' },
      interfaces: [
        { interface: 'training', url: emu.urls.base, key: 'accepted', detail: null },
        { interface: 'inference', url: emu.urls.inference, key: 'accepted', detail: '7 models' },
        { interface: 'trace', url: emu.urls.trace, key: 'not checked', detail: null },
      ],
    });
    expect(r.stdout).not.toContain(emu.key);
  });

  it('prints fields on a terminal and label<TAB>value lines when piped', async () => {
    const env = { ...urls(), AIP_API_KEY: emu.key, NO_COLOR: '1' };
    const tty = await runCli(['auth', 'status'], { env, stdoutTTY: true });
    expect(tty.stdout).toContain('api key      ****cdef (env AIP_API_KEY)\n');
    expect(tty.stdout).toContain(`inference    ${emu.urls.inference}  key accepted (7 models)\n`);
    const piped = await runCli(['auth', 'status'], { env });
    expect(piped.stdout.split('\n')).toContain('api key\t****cdef (env AIP_API_KEY)');
    for (const out of [tty.stdout, piped.stdout]) expect(out).not.toContain(emu.key);
  });

  it('tells two short keys apart by a fingerprint that gives nothing of them away (issue 19)', async () => {
    const shown = async (key: string) => {
      const r = await runCli(['auth', 'status', '--json'], { env: { ...urls(), AIP_API_KEY: key } });
      const status = JSON.parse(r.stdout);
      expect(r.stdout).not.toContain(key);
      return status.api_key as { masked: string; fingerprint: string };
    };
    const a = await shown('short-key-one');
    const b = await shown('short-key-two');
    // Both mask to ****, as a short key must; the fingerprints differ.
    expect([a.masked, b.masked]).toEqual(['****', '****']);
    expect(a.fingerprint).toMatch(/^\*\*\*\* sha256:[0-9a-f]{8}$/);
    expect(a.fingerprint).not.toBe(b.fingerprint);
    expect(await shown('short-key-one')).toEqual(a);
    const text = await runCli(['auth', 'status'], { env: { ...urls(), AIP_API_KEY: 'short-key-one' } });
    expect(text.stdout).toContain(`api key\t${a.fingerprint} (env AIP_API_KEY)`);
  });

  it('exits 4 without a key, still showing where it looked', async () => {
    const r = await runCli(['auth', 'status'], { env: urls() });
    expect(r.code).toBe(4);
    expect(r.stdout).toContain('api key\tnone');
    expect(r.stderr).toBe(
      `error: not logged in: no API key for profile "default"; run 'aip auth login' or set AIP_API_KEY\n`,
    );
    expect(await emu.requests()).toEqual([]);
  });

  it('exits 4 when the APIs reject the key', async () => {
    const r = await runCli(['auth', 'status'], { env: { ...urls(), AIP_API_KEY: 'revoked-key-0000000000' } });
    expect(r.code).toBe(4);
    expect(r.stdout).toContain('key rejected');
    expect(r.stderr).toBe(
      "error: the key is rejected by the training API and inference API; run 'aip auth login' or set AIP_API_KEY\n",
    );
  });

  it('prefers AIP_API_KEY over the stored key, and uses WANDB_API_KEY only as a fallback', async () => {
    const dir = tempConfigDir();
    await runCli(['auth', 'login', '--with-key'], { env: urls(dir), stdin: emu.key });
    const source = async (env: Record<string, string>) =>
      JSON.parse((await runCli(['auth', 'status', '--json'], { env: { ...urls(dir), ...env } })).stdout)
        .api_key.source;
    expect(await source({ AIP_API_KEY: emu.key, WANDB_API_KEY: 'w'.repeat(40) })).toBe('env AIP_API_KEY');
    expect(await source({ WANDB_API_KEY: 'w'.repeat(40) })).toBe('config profile default');
    expect(await source({ AIP_CONFIG_DIR: tempConfigDir(), WANDB_API_KEY: emu.key })).toBe(
      'env WANDB_API_KEY',
    );
  });

  it('uses the built-in key of the local profile, which an emulator started with defaults accepts', async () => {
    const defaults = await startEmulator({ port: 0 });
    try {
      const env = {
        AIP_CONFIG_DIR: tempConfigDir(),
        AIP_BASE_URL: defaults.urls.base,
        AIP_INFERENCE_URL: defaults.urls.inference,
      };
      const r = await runCli(['--profile', 'local', 'auth', 'status', '--json'], { env });
      expect(r.code).toBe(0);
      const status = JSON.parse(r.stdout);
      expect(status.api_key).toEqual({
        masked: '****-key',
        fingerprint: '****-key',
        source: 'built-in profile local',
        storage: 'builtin',
      });
      expect(status.interfaces.map((i: { key: string }) => i.key)).toEqual([
        'accepted',
        'accepted',
        'not checked',
      ]);
    } finally {
      await defaults.close();
    }
  });

  it('exits with the failure of a check that could not complete (429 → 6)', async () => {
    await emu.fault({ path: '/training/v1/preview/models/*/checkpoints', status: 429, times: 5 });
    const r = await runCli(['--max-retries', '0', 'auth', 'status', '--json'], { env: emu.env });
    expect(r.code).toBe(6);
    expect(JSON.parse(r.stdout).interfaces[0]).toMatchObject({ interface: 'training', key: 'error' });
    expect(r.stderr).toMatch(/^error: Concurrency limit reached for requests \(HTTP 429 from GET /);
  });

  it('refuses to send the key over plain http to a name that only looks local', async () => {
    const r = await runCli(['auth', 'status'], {
      env: { ...emu.env, AIP_BASE_URL: 'http://api.localhost/v1', AIP_INFERENCE_URL: 'http://10.0.0.1/v1' },
    });
    expect(r.code).toBe(2);
    expect(r.stdout).toContain('refusing to send the API key over plain http to api.localhost');
    expect(r.stderr).toBe(
      'error: refusing to send the API key over plain http to api.localhost: use an https:// URL (plain http is allowed only for loopback addresses such as the emulator)\n',
    );
    expect(await emu.requests()).toEqual([]);
  });
});

describe('auth token and logout', () => {
  it('token prints the key for $(aip auth token), and fails with exit 4 when there is none', async () => {
    const ok = await runCli(['auth', 'token'], { env: { ...urls(), AIP_API_KEY: emu.key } });
    expect(ok).toMatchObject({ code: 0, stdout: `${emu.key}\n`, stderr: '' });
    const none = await runCli(['auth', 'token'], { env: urls() });
    expect(none.code).toBe(4);
    expect(none.stdout).toBe('');
  });

  it('logout removes the stored key and keeps the rest of the profile', async () => {
    const dir = tempConfigDir();
    await runCli(['config', 'set', 'project', 'a/b'], { env: urls(dir) });
    await runCli(['auth', 'login', '--with-key'], { env: urls(dir), stdin: emu.key });
    const r = await runCli(['auth', 'logout'], { env: urls(dir) });
    expect(r.code).toBe(0);
    expect(r.stderr).toBe(`Removed the key ****cdef from profile "default" in ${join(dir, 'config.json')}\n`);
    expect(storedConfig(dir).profiles.default).toEqual({ project: 'a/b' });
    const typo = await runCli(['--profile', 'wrok', 'auth', 'logout'], { env: urls(dir) });
    expect(typo.code).toBe(2);
    expect(typo.stderr).toMatch(/^error: profile "wrok" does not exist/);
    const again = await runCli(['auth', 'logout'], { env: { ...urls(dir), AIP_API_KEY: emu.key } });
    expect(again.stderr).toBe(
      'No key is stored for profile "default"\nwarning: AIP_API_KEY is set in the environment and is still used\n',
    );
  });
});
