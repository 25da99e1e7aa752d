// --sandbox: a reward command or server that runs model-written code runs confined, with the
// operating system's own tool for it: bubblewrap (bwrap) on Linux, the tool distributions allow for
// unprivileged users (Ubuntu 24.04 restricts other uses of user namespaces through AppArmor).
//
// Inside: no network (a network namespace of its own, with only a loopback that reaches nothing of
// the host's), the whole file system read-only, but for a private temporary directory made for each
// process (0700, $TMPDIR, removed once it has ended), a /dev and a /proc of its own (its own pid
// namespace: it sees and signals nothing outside), and per process at most --sandbox-cpu seconds of
// CPU and --sandbox-memory MiB of address space (rlimits set by /bin/sh's ulimit before the command).
// It runs in the directory aip runs in, read-only, so that `python3 score.py` finds its script; the
// task reaches it on stdin and its environment is aip's, as without --sandbox.
//
// Where no sandbox can be made (no bwrap, bwrap refused by the system, macOS, Windows) --sandbox is
// refused when the scorer is made, before anything is sampled: never run unconfined instead.
//
// Ending it: bwrap is started as the command would be (its own process group), and
// --die-with-parent with a pid namespace of its own means that when bwrap is killed, or the command
// exits, everything the command started inside is killed by the kernel: killTree still ends it all.

import { spawnSync } from 'node:child_process';
import { accessSync, constants, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { UsageError } from '../errors/errors.js';
import type { ShellCommandPlan } from '../lib/spawn-plan.js';
import { treeKillPlan } from '../lib/spawn-plan.js';

export interface SandboxLimits {
  /** CPU seconds per process. */
  cpuSeconds: number;
  /** MiB of address space per process. */
  memoryMiB: number;
}

/** A sandbox that works on this machine: the bwrap found, and the limits. */
export interface Sandbox extends SandboxLimits {
  bwrap: string;
  /**
   * Environment variables unset inside: the ones that hold a key (secretNames). Code a model wrote
   * has no network, but what it prints becomes a failure's reason in a groups file.
   */
  unsetEnv?: readonly string[];
}

/** The variables of `env` that hold a key: aip's own, and any whose value holds one of `keys`. */
export function secretNames(env: Env, keys: readonly string[]): string[] {
  return Object.entries(env)
    .filter(
      ([name, value]) =>
        value !== undefined &&
        (/^AIP_(API|REWARD)_KEY$/.test(name) || keys.some((key) => key.length > 0 && value.includes(key))),
    )
    .map(([name]) => name);
}

type Env = Readonly<Record<string, string | undefined>>;

/** Runs bwrap as a check that it works here; its status and what it said. */
export type SandboxProbe = (bwrap: string, args: string[]) => { status: number | null; stderr: string };

const INSTALL = 'install bubblewrap (apt install bubblewrap, dnf install bubblewrap, pacman -S bubblewrap)';

/** Where /bin/sh and execvp look when there is no PATH. */
const DEFAULT_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

/** An executable named `name` on PATH, or undefined. */
function onPath(name: string, env: Env): string | undefined {
  for (const dir of (env.PATH ?? DEFAULT_PATH).split(delimiter)) {
    if (!dir) continue;
    const file = join(dir, name);
    try {
      accessSync(file, constants.X_OK);
      return file;
    } catch {
      // not here
    }
  }
  return undefined;
}

const defaultProbe: SandboxProbe = (bwrap, args) => {
  const result = spawnSync(bwrap, args, { stdio: ['ignore', 'ignore', 'pipe'], timeout: 10_000 });
  return {
    status: result.error ? null : result.status,
    stderr: result.error ? result.error.message : result.stderr.toString('utf8'),
  };
};

/** The namespaces and mounts every sandboxed process gets (its private directory added per process). */
const CONFINEMENT = [
  '--die-with-parent',
  '--unshare-net',
  '--unshare-pid',
  '--unshare-ipc',
  '--unshare-uts',
  '--ro-bind',
  '/',
  '/',
  '--dev',
  '/dev',
  '--proc',
  '/proc',
];

/**
 * The sandbox --sandbox asks for, checked now: a UsageError (exit 2) that says why and what to do
 * where there is none. bwrap is run once to see that this system lets it make its namespaces.
 */
export function findSandbox(
  limits: SandboxLimits,
  env: Env = process.env,
  platform: NodeJS.Platform = process.platform,
  probe: SandboxProbe = defaultProbe,
): Sandbox {
  if (platform === 'darwin')
    throw new UsageError(
      '--sandbox is not supported on macOS yet (sandbox-exec is not used): run the reward without --sandbox, or on Linux with bubblewrap',
    );
  if (platform !== 'linux')
    throw new UsageError(
      `--sandbox is not supported on ${platform === 'win32' ? 'Windows' : platform}: it needs Linux with bubblewrap (bwrap); run the reward without --sandbox, or on Linux (WSL included)`,
    );
  const bwrap = onPath('bwrap', env);
  if (!bwrap) throw new UsageError(`--sandbox needs bubblewrap (bwrap), not found on PATH: ${INSTALL}`);
  const { status, stderr } = probe(bwrap, [...CONFINEMENT, '--', '/bin/true']);
  if (status !== 0) {
    const said = stderr.trim().split('\n').at(-1)?.trim();
    throw new UsageError(
      `--sandbox: bubblewrap (${bwrap}) cannot make a sandbox here${said ? ` (${said})` : ''}: this system may restrict user namespaces (on Ubuntu, the AppArmor profile of the distribution's bwrap allows them: use /usr/bin/bwrap from apt install bubblewrap)`,
    );
  }
  return { bwrap, ...limits };
}

/** A private temporary directory for one sandboxed process (mkdtemp: 0700). */
export function makePrivateDir(): string {
  return mkdtempSync(join(tmpdir(), 'aip-sandbox-'));
}

/** Removes a process's private directory; one already gone, or busy a moment longer, is no error. */
export function removePrivateDir(dir: string): void {
  try {
    rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
  } catch {
    // left for the system's tmp cleaning
  }
}

/**
 * How to run `command` confined: bwrap in a process group of its own, /bin/sh inside setting the
 * limits then running the command as --reward-cmd does. `dir` is the process's private directory.
 */
export function sandboxedCommandPlan(
  command: string,
  sandbox: Sandbox,
  dir: string,
  cwd: string = process.cwd(),
): ShellCommandPlan {
  const memoryKiB = sandbox.memoryMiB * 1024;
  return {
    file: sandbox.bwrap,
    args: [
      ...CONFINEMENT,
      '--bind',
      dir,
      dir,
      '--setenv',
      'TMPDIR',
      dir,
      ...(sandbox.unsetEnv ?? []).flatMap((name) => ['--unsetenv', name]),
      '--chdir',
      cwd,
      '--',
      '/bin/sh',
      '-c',
      'ulimit -t "$1" && ulimit -v "$2" && exec /bin/sh -c "$3"',
      'sh',
      String(sandbox.cpuSeconds),
      String(memoryKiB),
      command,
    ],
    options: { detached: true },
    killTree: (pid) => treeKillPlan(pid, 'linux'),
    killAfterExit: true,
  };
}
