// The keychain asked with a deadline (issue 28). A Secret Service that accepts a D-Bus connection and
// never answers (here: a socket that accepts and stays silent, as the session bus address) hung
// `auth login` with no output, and cost every command that reads the key its wait; past the deadline
// (3 s, AIP_KEYRING_TIMEOUT) the file is used, with one warning that says why. A bus that cannot be
// reached at all is said once, consistently. aip runs as a process: the old code blocked in native
// code, which only killing the process ends (runAip's bound), so a regression fails instead of hanging.

import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keychainTimeoutMs } from '../../src/settings/keychain.js';
import { tempConfigDir } from '../helpers/cli.js';
import { useEmulator } from '../helpers/emulator.js';
import { patience } from '../helpers/patience.js';
import { type SecretService, secretServiceMissing, startSecretService } from '../helpers/secret-service.js';
import { runAip } from '../helpers/spawn.js';
import { tempDir } from '../helpers/temp.js';

const { emu } = useEmulator();
const LABEL = 'the system keychain (Secret Service)';

/** The emulator's URLs, without its key: these tests decide where the key comes from. */
function urls(dir: string): Record<string, string> {
  const { AIP_API_KEY: _key, ...rest } = emu.env;
  return { ...rest, AIP_CONFIG_DIR: dir };
}

function withFileKey(dir: string): string {
  const file = join(dir, 'config.json');
  writeFileSync(file, JSON.stringify({ profiles: { default: { 'api-key': emu.key } } }), { mode: 0o600 });
  return file;
}

/** aip as a process, the keychain on, its bus at `address`; killed (code null) if it hangs. */
const aip = (
  args: string[],
  dir: string,
  address: string,
  more: { stdin?: string; env?: Record<string, string> } = {},
) =>
  runAip(args, {
    env: { ...urls(dir), DBUS_SESSION_BUS_ADDRESS: address, AIP_KEYRING: '', ...more.env },
    stdin: more.stdin,
    timeoutMs: patience(90_000),
  });

describe('AIP_KEYRING_TIMEOUT', () => {
  it('is 3 s by default, a number of seconds otherwise, and a usage error when it is not one', () => {
    expect(keychainTimeoutMs({})).toBe(3000);
    expect(keychainTimeoutMs({ AIP_KEYRING_TIMEOUT: ' 0.5 ' })).toBe(500);
    expect(keychainTimeoutMs({ AIP_KEYRING_TIMEOUT: '60' })).toBe(60_000);
    for (const bad of ['0', '-1', 'abc', '1e3', '601', 'Infinity', 'NaN', '3s'])
      expect(() => keychainTimeoutMs({ AIP_KEYRING_TIMEOUT: bad }), bad).toThrow(/AIP_KEYRING_TIMEOUT/);
  });
});

/** Above runAip's bound: a run that hangs is killed, and fails its test, before vitest gives up on it. */
const BOUND = { timeout: patience(120_000) };

describe.runIf(process.platform === 'linux')('a Secret Service that accepts and never answers', BOUND, () => {
  let server: Server;
  let address: string;
  const sockets = new Set<Socket>();
  beforeAll(async () => {
    const path = join(tempDir('aip-silent-bus-'), 'bus');
    server = createServer((socket) => {
      // Accepted, read, never answered: libdbus waits for the bus's reply to its first word.
      sockets.add(socket);
      socket.on('data', () => {});
      socket.on('error', () => {});
      socket.on('close', () => sockets.delete(socket));
    });
    await new Promise<void>((resolve) => server.listen(path, resolve));
    address = `unix:path=${path}`;
  });
  afterAll(async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => server?.close(resolve));
  });

  it('auth login ends, the key in the file, with one warning that says why', async () => {
    const dir = tempConfigDir();
    const file = join(dir, 'config.json');
    const started = Date.now();
    const r = await aip(['auth', 'login', '--with-key'], dir, address, { stdin: emu.key });
    expect([r.code, r.signal]).toEqual([0, null]);
    expect(r.stderr).toBe(
      `warning: Storing the key in plain text in ${file} (mode 0600): ${LABEL} did not answer within 3 s\n` +
        `Logged in: key ****cdef saved to profile "default" in ${file} (accepted by ${emu.urls.inference}, 7 models)\n`,
    );
    // It waited for the deadline (a lower bound only), once: the removal that would follow is not asked.
    expect(Date.now() - started).toBeGreaterThanOrEqual(3000);
    expect(JSON.parse(readFileSync(file, 'utf8')).profiles.default).toEqual({ 'api-key': emu.key });
  });

  it('a command that reads the key uses the file, and says why once', async () => {
    const dir = tempConfigDir();
    const file = withFileKey(dir);
    const r = await aip(['auth', 'status', '--json'], dir, address);
    expect([r.code, r.signal]).toEqual([0, null]);
    expect(JSON.parse(r.stdout).api_key.storage).toBe('file');
    expect(r.stderr).toBe(
      `warning: ${LABEL} did not answer within 3 s: using the key of profile "default" in ${file} (AIP_KEYRING=off skips the keychain)\n`,
    );
  });

  it('AIP_KEYRING_TIMEOUT sets the deadline; with no key elsewhere, the warning comes before "no key"', async () => {
    const dir = tempConfigDir();
    const r = await aip(['models', 'list'], dir, address, { env: { AIP_KEYRING_TIMEOUT: '0.5' } });
    expect([r.code, r.signal]).toEqual([4, null]);
    expect(r.stderr.split('\n')[0]).toBe(
      `warning: ${LABEL} did not answer within 0.5 s: no key of profile "default" could be read from it (AIP_KEYRING=off skips the keychain)`,
    );
    const bad = await aip(['models', 'list'], dir, address, { env: { AIP_KEYRING_TIMEOUT: 'soon' } });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^error: AIP_KEYRING_TIMEOUT must be a number of seconds/);
  });

  it('auth logout says the keychain did not answer, not that the key is still there', async () => {
    const dir = tempConfigDir();
    const file = withFileKey(dir);
    const r = await aip(['auth', 'logout'], dir, address, { env: { AIP_KEYRING_TIMEOUT: '0.5' } });
    expect([r.code, r.signal]).toEqual([1, null]);
    expect(r.stderr).toBe(
      `Removed the key ****cdef from profile "default" in ${file}\n` +
        `error: could not remove the key of profile "default" from the keychain: ${LABEL} did not answer within 0.5 s; a key stored there, if any, is still there: run 'aip auth logout' again once it answers\n`,
    );
  });
});

describe.runIf(process.platform === 'linux')('a D-Bus session that cannot be reached', BOUND, () => {
  it('auth login says so once, and nothing that contradicts it', async () => {
    const address = `unix:path=${join(tempDir('aip-no-bus-'), 'nothing-here')}`;
    const dir = tempConfigDir();
    const file = join(dir, 'config.json');
    const r = await aip(['auth', 'login', '--with-key'], dir, address, { stdin: emu.key });
    expect(r.code).toBe(0);
    const lines = r.stderr.trimEnd().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(
      new RegExp(
        `^warning: Storing the key in plain text in ${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} \\(mode 0600\\): ${LABEL.replace(/[()]/g, '\\$&')} could not be reached \\(DBus error: .*\\)$`,
      ),
    );
    expect(lines[1]).toMatch(/^Logged in: key \*\*\*\*cdef saved to profile "default"/);
    // The file's key is then used, without a word (a --debug note says why the keychain was not).
    const status = await aip(['auth', 'status', '--json'], dir, address);
    expect([status.code, status.stderr]).toEqual([0, '']);
    expect(JSON.parse(status.stdout).api_key.storage).toBe('file');
    const debug = await aip(['--debug', 'auth', 'token'], dir, address);
    expect(debug.stderr).toMatch(/debug: keychain not read: .* could not be reached/);
  });
});

const missing = secretServiceMissing();

describe.skipIf(missing !== undefined)(
  `against a real Secret Service${missing ? ` (skipped: ${missing})` : ''}`,
  BOUND,
  () => {
    let service: SecretService;
    beforeAll(async () => {
      service = await startSecretService();
    });
    afterAll(async () => {
      await service?.stop();
    });

    it('a key in the keychain that no header can carry is refused, exit 2, before any request', async () => {
      const dir = tempConfigDir();
      writeFileSync(join(dir, 'config.json'), JSON.stringify({ profiles: { default: {} } }), { mode: 0o600 });
      // Put there by another tool (aip would refuse it): the binding itself, on the private bus.
      const binding = createRequire(import.meta.url).resolve('@napi-rs/keyring');
      const stored = spawnSync(
        process.execPath,
        [
          '-e',
          `const { Entry } = require(${JSON.stringify(binding)});
           new Entry('aip', process.argv[1], { linux: { store: 'secret-service' } }).setPassword('line\\nfeed-0123456789abcdef');`,
          `default@${join(dir, 'config.json')}`,
        ],
        { env: service.env, encoding: 'utf8', timeout: patience(60_000) },
      );
      expect(stored.status, stored.stderr).toBe(0);
      const before = (await emu.requests()).length;
      const r = await aip(['auth', 'status'], dir, service.address);
      expect(r.code).toBe(2);
      expect(r.stderr).toBe(
        "error: the API key from keychain profile default cannot be sent: it holds a line feed (U+000A) at character 5, which an HTTP header cannot carry; store it again with 'aip auth login'\n",
      );
      expect((await emu.requests()).length).toBe(before);
    });

    it('a keychain that answers is asked within its deadline, and --debug says how long each call took', async () => {
      const dir = tempConfigDir();
      const login = await aip(['auth', 'login', '--with-key'], dir, service.address, {
        stdin: emu.key,
        // A busy machine must not take a slow start for a silent keychain: the deadline counts from
        // when the call begins, and here it is generous.
        env: { AIP_KEYRING_TIMEOUT: '60' },
      });
      expect([login.code, login.stderr]).toEqual([
        0,
        `Logged in: key ****cdef of profile "default" saved to ${LABEL} (accepted by ${emu.urls.inference}, 7 models)\n`,
      ]);
      const token = await aip(['--debug', 'auth', 'token'], dir, service.address);
      expect(token.stdout).toBe(`${emu.key}\n`);
      expect(token.stderr).toMatch(/^debug: keychain get: \d+ ms$/m);
      // A command that needs no key never asks it.
      const get = await aip(['--debug', 'config', 'get', 'base-url'], dir, service.address);
      expect(get.code).toBe(0);
      expect(get.stderr).not.toMatch(/keychain/);
    });
  },
);
