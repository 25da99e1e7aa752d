// The API key in the OS keychain (issue 19). The file fallback is tested everywhere: no secret service
// (no D-Bus session), AIP_KEYRING=off, --insecure-storage. The keychain itself against a real Secret
// Service (gnome-keyring on a private D-Bus bus: test/helpers/secret-service.ts) where its tools are
// installed, with aip run as a process (the binding's libdbus reads the bus address from the
// process's own environment); secret-tool reads back what aip stored, independently of aip.

import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keychainAbsence } from '../../src/settings/keychain.js';
import { runCli, tempConfigDir } from '../helpers/cli.js';
import { useEmulator } from '../helpers/emulator.js';
import { patience } from '../helpers/patience.js';
import { type SecretService, secretServiceMissing, startSecretService } from '../helpers/secret-service.js';
import { runAip } from '../helpers/spawn.js';

/** Preloaded to name on stderr every module a command loads (as the start-up test does). */
const LOADER = fileURLToPath(new URL('../helpers/log-loads.cjs', import.meta.url));
const loadedKeyring = (stderr: string) =>
  stderr.split('\n').filter((line) => line.startsWith('aip-test-load ') && /keyring/.test(line));

const { emu } = useEmulator();

/** The emulator's URLs, without its key: these tests decide where the key comes from. */
function urls(dir: string): Record<string, string> {
  const { AIP_API_KEY: _key, ...rest } = emu.env;
  return { ...rest, AIP_CONFIG_DIR: dir };
}

function profiles(dir: string): Record<string, Record<string, string>> {
  return JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')).profiles;
}

describe('keychainAbsence: when the keychain is not even looked for', () => {
  it('AIP_KEYRING=off anywhere; on Linux, no D-Bus session address', () => {
    expect(keychainAbsence({ AIP_KEYRING: 'off', DBUS_SESSION_BUS_ADDRESS: 'unix:path=/x' }, 'linux')).toBe(
      'AIP_KEYRING=off',
    );
    expect(keychainAbsence({ AIP_KEYRING: 'OFF' }, 'darwin')).toBe('AIP_KEYRING=off');
    expect(keychainAbsence({}, 'linux')).toBe('no D-Bus session (DBUS_SESSION_BUS_ADDRESS is unset)');
    expect(keychainAbsence({ DBUS_SESSION_BUS_ADDRESS: ' ' }, 'linux')).toMatch(/no D-Bus session/);
    expect(keychainAbsence({ DBUS_SESSION_BUS_ADDRESS: 'unix:path=/x' }, 'linux')).toBeUndefined();
    expect(keychainAbsence({}, 'darwin')).toBeUndefined();
    expect(keychainAbsence({}, 'win32')).toBeUndefined();
    expect(keychainAbsence({}, 'aix')).toBe('no keychain support on aix');
  });
});

describe('the file fallback, always', () => {
  // Only where "no D-Bus session" means no keychain: on macOS, unsetting AIP_KEYRING would reach the
  // developer's real Keychain.
  it.runIf(process.platform === 'linux')(
    'without a secret service: the file, mode 0600, with a plain-text warning; status, doctor and logout say so',
    async () => {
      const dir = tempConfigDir();
      const env = { ...urls(dir), AIP_KEYRING: '' };
      const file = join(dir, 'config.json');
      const login = await runCli(['auth', 'login', '--with-key'], { env, stdin: emu.key });
      expect(login.code).toBe(0);
      expect(login.stderr).toBe(
        `warning: Storing the key in plain text in ${file} (mode 0600): no keychain here: no D-Bus session (DBUS_SESSION_BUS_ADDRESS is unset)\n` +
          `Logged in: key ****cdef saved to profile "default" in ${file} (accepted by ${emu.urls.inference}, 7 models)\n`,
      );
      expect(profiles(dir).default).toEqual({ 'api-key': emu.key });
      expect(statSync(file).mode & 0o777).toBe(0o600);

      const json = await runCli(['auth', 'status', '--json'], { env });
      expect(JSON.parse(json.stdout).api_key).toEqual({
        masked: '****cdef',
        fingerprint: '****cdef',
        source: 'config profile default',
        storage: 'file',
      });
      const text = await runCli(['auth', 'status'], { env });
      expect(text.stdout.split('\n')).toContain(`key storage\tplain text in ${file} (mode 0600)`);
      const doctor = await runCli(['doctor', '--json'], { env });
      const row = (JSON.parse(doctor.stdout) as { check: string; detail: string }[]).find(
        (r) => r.check === 'api key',
      );
      expect(row?.detail).toBe(
        `****cdef (config profile default; stored in plain text in ${file} (mode 0600))`,
      );
      // --debug says why the keychain was not used.
      const debug = await runCli(['--debug', 'auth', 'token'], { env });
      expect(debug.stderr).toContain('debug: keychain not used: no D-Bus session');
      expect(debug.stderr).not.toContain(emu.key);

      const logout = await runCli(['auth', 'logout'], { env });
      expect(logout.stderr).toBe(`Removed the key ****cdef from profile "default" in ${file}\n`);
      expect(profiles(dir).default).toEqual({});
    },
  );

  it('--insecure-storage forces the file, and says so', async () => {
    const dir = tempConfigDir();
    const file = join(dir, 'config.json');
    const r = await runCli(['auth', 'login', '--with-key', '--insecure-storage'], {
      env: urls(dir),
      stdin: emu.key,
    });
    expect(r.code).toBe(0);
    expect(r.stderr.split('\n')[0]).toBe(
      `warning: Storing the key in plain text in ${file} (mode 0600): --insecure-storage`,
    );
    expect(profiles(dir).default).toEqual({ 'api-key': emu.key });
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  it('environment keys are said to live in the environment', async () => {
    const r = await runCli(['auth', 'status', '--json'], {
      env: { ...urls(tempConfigDir()), AIP_API_KEY: emu.key },
    });
    expect(JSON.parse(r.stdout).api_key).toMatchObject({ source: 'env AIP_API_KEY', storage: 'env' });
  });
});

const missing = secretServiceMissing();

describe.skipIf(missing !== undefined)(
  `the keychain, against a real Secret Service${missing ? ` (skipped: ${missing})` : ''}`,
  () => {
    let service: SecretService;
    beforeAll(async () => {
      service = await startSecretService();
    });
    afterAll(async () => {
      await service?.stop();
    });

    /** aip as a process, on the private bus, the keychain on (aipEnv's AIP_KEYRING=off undone). */
    const aip = (args: string[], dir: string, more: { stdin?: string; env?: Record<string, string> } = {}) =>
      runAip(args, {
        env: { ...urls(dir), DBUS_SESSION_BUS_ADDRESS: service.address, AIP_KEYRING: '', ...more.env },
        stdin: more.stdin,
        // A keychain call that never returned would hang the command: killed, it fails the test.
        timeoutMs: patience(60_000),
      });
    const inKeychain = (dir: string, profile = 'default') =>
      service.lookup({ service: 'aip', username: `${profile}@${join(dir, 'config.json')}` });

    it('login stores the key in the keychain, not the file; status, doctor and other commands find it there', async () => {
      const dir = tempConfigDir();
      const login = await aip(['auth', 'login', '--with-key'], dir, { stdin: emu.key });
      expect([login.code, login.stderr]).toEqual([
        0,
        `Logged in: key ****cdef of profile "default" saved to the system keychain (Secret Service) (accepted by ${emu.urls.inference}, 7 models)\n`,
      ]);
      expect(inKeychain(dir)).toBe(emu.key);
      // The profile exists (a name in no file is taken for a typo), without the key.
      expect(profiles(dir)).toEqual({ default: {} });
      expect(readFileSync(join(dir, 'config.json'), 'utf8')).not.toContain(emu.key);

      const status = await aip(['auth', 'status', '--json'], dir);
      expect(status.code).toBe(0);
      expect(JSON.parse(status.stdout).api_key).toEqual({
        masked: '****cdef',
        fingerprint: '****cdef',
        source: 'keychain profile default',
        storage: 'keychain',
      });
      const text = await aip(['auth', 'status'], dir);
      expect(text.stdout.split('\n')).toContain('key storage\tthe system keychain (Secret Service)');
      const doctor = await aip(['doctor', '--json'], dir);
      const row = (JSON.parse(doctor.stdout) as { check: string; detail: string }[]).find(
        (r) => r.check === 'api key',
      );
      expect(row?.detail).toBe(
        '****cdef (keychain profile default; stored in the system keychain (Secret Service))',
      );
      // config profiles says where each profile's key is stored.
      const listed = await aip(['config', 'profiles', '--json'], dir);
      expect(
        (JSON.parse(listed.stdout) as { name: string }[]).find((p) => p.name === 'default'),
      ).toMatchObject({ key_stored: true, key_storage: 'keychain' });
      // Another config directory has its own "default": not this one's key.
      const other = tempConfigDir();
      expect(inKeychain(other)).toBeUndefined();
      expect((await aip(['auth', 'status'], other)).code).toBe(4);
      // The environment still comes first.
      const env = await aip(['auth', 'status', '--json'], dir, { env: { AIP_API_KEY: emu.key } });
      expect(JSON.parse(env.stdout).api_key.storage).toBe('env');
    });

    it('a key already in the file moves to the keychain on the next login', async () => {
      const dir = tempConfigDir();
      writeFileSync(
        join(dir, 'config.json'),
        JSON.stringify({ profiles: { work: { 'api-key': emu.key, project: 'team/p' } } }),
        { mode: 0o600 },
      );
      const r = await aip(['--profile', 'work', 'auth', 'login', '--with-key'], dir, { stdin: emu.key });
      expect(r.code).toBe(0);
      expect(r.stderr).toContain(
        `Moved the key of profile "work" out of ${join(dir, 'config.json')}, where it was in plain text\n`,
      );
      expect(inKeychain(dir, 'work')).toBe(emu.key);
      expect(profiles(dir)).toEqual({ work: { project: 'team/p' } });
    });

    it('--insecure-storage puts it in the file and takes it out of the keychain; logout empties both', async () => {
      const dir = tempConfigDir();
      await aip(['auth', 'login', '--with-key'], dir, { stdin: emu.key });
      expect(inKeychain(dir)).toBe(emu.key);
      const insecure = await aip(['auth', 'login', '--with-key', '--insecure-storage'], dir, {
        stdin: emu.key,
      });
      expect(insecure.code).toBe(0);
      expect(insecure.stderr).toContain('Removed the key of profile "default" from the keychain\n');
      expect(inKeychain(dir)).toBeUndefined();
      expect(profiles(dir).default).toEqual({ 'api-key': emu.key });
      const status = await aip(['auth', 'status', '--json'], dir);
      expect(JSON.parse(status.stdout).api_key.storage).toBe('file');

      // Both places at once (a keychain entry, and a key put in the file by hand): logout removes both.
      await aip(['auth', 'login', '--with-key'], dir, { stdin: emu.key });
      writeFileSync(
        join(dir, 'config.json'),
        JSON.stringify({ profiles: { default: { 'api-key': emu.key } } }),
      );
      const logout = await aip(['auth', 'logout'], dir);
      expect(logout.code).toBe(0);
      expect(logout.stderr).toBe(
        'Removed the key ****cdef of profile "default" from the system keychain (Secret Service)\n' +
          `Removed the key ****cdef from profile "default" in ${join(dir, 'config.json')}\n`,
      );
      expect(inKeychain(dir)).toBeUndefined();
      expect(profiles(dir).default).toEqual({});
      expect((await aip(['auth', 'logout'], dir)).stderr).toBe('No key is stored for profile "default"\n');
    });

    it('a keychain that does not answer costs seconds, not a hang: the file key is used', async () => {
      const dir = tempConfigDir();
      writeFileSync(
        join(dir, 'config.json'),
        JSON.stringify({ profiles: { default: { 'api-key': emu.key } } }),
        {
          mode: 0o600,
        },
      );
      service.keyring.kill('SIGSTOP');
      try {
        const r = await aip(['auth', 'status', '--json'], dir);
        expect(r.code).toBe(0);
        expect(JSON.parse(r.stdout).api_key.storage).toBe('file');
      } finally {
        service.keyring.kill('SIGCONT');
      }
    });

    it('never touches the keychain for a command that needs no key', async () => {
      const dir = tempConfigDir();
      await aip(['auth', 'login', '--with-key'], dir, { stdin: emu.key });
      const traced = { env: { NODE_OPTIONS: `--require ${LOADER}` } };
      // What asks the keychain asks it in a child process (settings/keychain.ts: its deadline), which
      // --debug times; aip's own process never loads the binding, even then.
      const token = await aip(['--debug', 'auth', 'token'], dir, traced);
      expect(token.stdout).toBe(`${emu.key}\n`);
      expect(token.stderr).toMatch(/^debug: keychain get: \d+ ms$/m);
      expect(loadedKeyring(token.stderr)).toEqual([]);
      service.keyring.kill('SIGSTOP');
      try {
        const r = await aip(['--debug', 'config', 'get', 'base-url'], dir, traced);
        expect(r.code).toBe(0);
        expect(r.stderr).toMatch(/^aip-test-load /m);
        expect(r.stderr).not.toMatch(/keychain/);
        expect(loadedKeyring(r.stderr)).toEqual([]);
      } finally {
        service.keyring.kill('SIGCONT');
      }
    });
  },
);
