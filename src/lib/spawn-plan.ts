// How aip starts the commands and programs a user names, per platform, in one place. Each choice
// takes the platform as a parameter (process.platform unless told), so that what Windows and macOS
// get is unit-tested on Linux (test/lib/spawn-plan.test.ts); nothing here is run on Windows by CI.
//
// A command line (--reward-cmd) goes to the platform's shell: /bin/sh -c on POSIX, in a process group
// of its own so that one signal ends it and whatever it started; cmd.exe /d /s /c "…" on Windows,
// exactly as Node runs `shell: true`, where there are no process groups and taskkill /T ends the tree.
// A program and its arguments (traces exec -- npm test) run without a shell: on Windows through
// cross-spawn, which finds npm.cmd through PATHEXT and quotes its arguments for cmd.exe (Node refuses
// to start a .cmd or .bat without a shell since 20.12.2, CVE-2024-27980); elsewhere through Node.

import { type ChildProcess, type SpawnOptions, spawn } from 'node:child_process';
import crossSpawn from 'cross-spawn';

type Env = Readonly<Record<string, string | undefined>>;

/** How to end a process and everything it started, once its pid is known. */
export type TreeKillPlan =
  /** process.kill(pid, signal) with the negative pid: the whole process group the child leads. */
  | { how: 'signal-group'; pid: number; signal: 'SIGKILL' }
  /** A program that ends the tree (taskkill /T walks it by parent pid; /F as there is no SIGKILL). */
  | { how: 'run'; file: string; args: string[] };

export interface ShellCommandPlan {
  file: string;
  args: string[];
  options: Pick<SpawnOptions, 'detached' | 'windowsVerbatimArguments' | 'windowsHide'>;
  killTree(pid: number): TreeKillPlan;
  /**
   * Whether the tree is ended even after the command has exited, to take what it left running. A
   * process group outlives its leader, so on POSIX it is. On Windows it is not: taskkill finds the
   * tree from the command's pid, which once the command is gone names nothing, or another process.
   */
  killAfterExit: boolean;
}

/** A value of the environment, by its name in any case on Windows (whose names are so). */
function envValue(env: Env, name: string, platform: NodeJS.Platform): string | undefined {
  if (platform !== 'win32') return env[name];
  const key = Object.keys(env).find((k) => k.toUpperCase() === name.toUpperCase());
  return key === undefined ? undefined : env[key];
}

export function treeKillPlan(pid: number, platform: NodeJS.Platform = process.platform): TreeKillPlan {
  if (platform === 'win32') return { how: 'run', file: 'taskkill', args: ['/pid', String(pid), '/T', '/F'] };
  return { how: 'signal-group', pid: -pid, signal: 'SIGKILL' };
}

/** A command line for the platform's shell, as the user wrote it for that shell. */
export function shellCommandPlan(
  command: string,
  env: Env = process.env,
  platform: NodeJS.Platform = process.platform,
): ShellCommandPlan {
  const killTree = (pid: number) => treeKillPlan(pid, platform);
  if (platform === 'win32')
    return {
      file: envValue(env, 'ComSpec', platform) || 'cmd.exe',
      // /d: no AutoRun commands from the registry; /s /c "…": cmd strips the outer quotes and runs the
      // rest as typed, its own quotes, &, ^ and %VAR% included. Verbatim, as Node's quoting of each
      // argument for the C runtime would escape the quotes cmd is meant to see.
      args: ['/d', '/s', '/c', `"${command}"`],
      // Not detached: on Windows that would give the command a console window of its own; hidden, so
      // that none flashes up per trajectory when aip itself has no console (a scheduled task).
      options: { windowsVerbatimArguments: true, windowsHide: true },
      killTree,
      killAfterExit: false,
    };
  return {
    file: '/bin/sh',
    args: ['-c', command],
    options: { detached: true },
    killTree,
    killAfterExit: true,
  };
}

/** Ends a tree as planned; a tree already gone, or no taskkill to be had, is no error. */
export function killTree(plan: TreeKillPlan): void {
  if (plan.how === 'signal-group') {
    try {
      process.kill(plan.pid, plan.signal);
    } catch {
      // already gone
    }
    return;
  }
  const killer = spawn(plan.file, plan.args, { stdio: 'ignore', windowsHide: true });
  killer.on('error', () => {});
}

/** Which spawn starts a program the user named with its arguments. */
export function programSpawner(platform: NodeJS.Platform = process.platform): 'cross-spawn' | 'node' {
  return platform === 'win32' ? 'cross-spawn' : 'node';
}

export function spawnProgram(
  file: string,
  args: readonly string[],
  options: SpawnOptions,
  platform: NodeJS.Platform = process.platform,
): ChildProcess {
  return programSpawner(platform) === 'cross-spawn'
    ? crossSpawn(file, [...args], options)
    : spawn(file, args, options);
}
