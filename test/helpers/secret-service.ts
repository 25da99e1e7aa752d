// A real Secret Service for the keychain tests: a private D-Bus session bus (dbus-daemon, with no
// service directories, so that nothing is started by activation behind the test's back) and
// gnome-keyring-daemon on it, its "login" keyring made and unlocked with a password given on stdin,
// its files in a temporary directory. Both run in the foreground, as children of this process, and
// stop() kills them: nothing of the machine's own session (if it has one) is touched.

import { type ChildProcess, execFileSync, spawn, spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { patience } from './patience.js';
import { tempDir } from './temp.js';

const TOOLS = ['dbus-daemon', 'dbus-send', 'gnome-keyring-daemon', 'secret-tool'] as const;

/** Why a real Secret Service cannot run here (a tool missing, not Linux); undefined if it can. */
export function secretServiceMissing(): string | undefined {
  if (process.platform !== 'linux')
    return `a Secret Service on a private bus is a Linux test (${process.platform})`;
  const missing = TOOLS.filter((tool) => spawnSync('sh', ['-c', `command -v ${tool}`]).status !== 0);
  if (missing.length === 0) return undefined;
  return `${missing.join(', ')} not installed (apt-get install dbus-daemon gnome-keyring libsecret-tools)`;
}

export interface SecretService {
  /** DBUS_SESSION_BUS_ADDRESS of the private bus. */
  address: string;
  /** The environment for processes that use it (the bus, and a HOME of its own). */
  env: Record<string, string>;
  /** The gnome-keyring daemon's process (stopped with SIGSTOP to play a service that never answers). */
  keyring: ChildProcess;
  /** What secret-tool finds under these attributes: an independent check of what aip stored. */
  lookup(attributes: Record<string, string>): string | undefined;
  stop(): Promise<void>;
}

function busConfig(socket: string): string {
  return `<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>session</type>
  <listen>unix:path=${socket}</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow send_destination="*" eavesdrop="true"/>
    <allow eavesdrop="true"/>
    <allow own="*"/>
  </policy>
</busconfig>
`;
}

function stopped(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGCONT');
    child.kill('SIGKILL');
  });
}

function hasOwner(env: Record<string, string>, name: string): boolean {
  const r = spawnSync(
    'dbus-send',
    [
      '--session',
      '--print-reply',
      '--dest=org.freedesktop.DBus',
      '/org/freedesktop/DBus',
      'org.freedesktop.DBus.NameHasOwner',
      `string:${name}`,
    ],
    { env, encoding: 'utf8', timeout: patience(10_000) },
  );
  return r.status === 0 && /boolean true/.test(r.stdout);
}

async function until(condition: () => boolean, what: string, ms = patience(30_000)): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`${what} not ready in ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

export async function startSecretService(): Promise<SecretService> {
  const dir = tempDir('aip-keyring-');
  const socket = join(dir, 'bus');
  const config = join(dir, 'bus.conf');
  writeFileSync(config, busConfig(socket));
  const address = `unix:path=${socket}`;
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: dir,
    XDG_DATA_HOME: join(dir, 'data'),
    XDG_RUNTIME_DIR: dir,
    DBUS_SESSION_BUS_ADDRESS: address,
  };
  const children: ChildProcess[] = [];
  const stop = async () => {
    await Promise.all(children.map(stopped));
  };
  try {
    const bus = spawn('dbus-daemon', ['--nofork', '--nopidfile', `--config-file=${config}`], {
      env,
      stdio: 'ignore',
    });
    children.push(bus);
    await until(() => hasOwner(env, 'org.freedesktop.DBus'), 'the D-Bus session bus');
    // --unlock reads the password from stdin up to its end; with no keyring yet, it makes the "login"
    // keyring with it, which becomes the default collection.
    const keyring = spawn('gnome-keyring-daemon', ['--foreground', '--unlock', '--components=secrets'], {
      env,
      stdio: ['pipe', 'ignore', 'ignore'],
    });
    children.push(keyring);
    keyring.stdin?.end('test-keyring-password');
    await until(() => hasOwner(env, 'org.freedesktop.secrets'), 'gnome-keyring-daemon');
    return {
      address,
      env,
      keyring,
      lookup: (attributes) => {
        try {
          const found = execFileSync('secret-tool', ['lookup', ...Object.entries(attributes).flat()], {
            env,
            encoding: 'utf8',
            timeout: patience(30_000),
            stdio: ['ignore', 'pipe', 'ignore'],
          });
          return found === '' ? undefined : found;
        } catch {
          return undefined; // exit 1: nothing found
        }
      },
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}
