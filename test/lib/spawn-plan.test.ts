// What Windows and macOS get from src/lib/spawn-plan.ts, decided here on Linux: no test of this suite
// runs on Windows or macOS. The plans are data, so each platform's is checked directly; two oracles
// stand in for the platform itself, each under an emulated process.platform of 'win32': Node's own
// arguments for `shell: true` (what the reward command's must equal), and cross-spawn's resolution of a
// program through a fake PATH and PATHEXT (what traces exec runs on Windows).

import { ChildProcess, spawn as nodeSpawn, type SpawnOptions } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { programSpawner, shellCommandPlan, treeKillPlan } from '../../src/lib/spawn-plan.js';
import { tempDir } from '../helpers/temp.js';

const require = createRequire(import.meta.url);

/** Quotes, spaces, &, %VAR% and ^: all of them cmd.exe's to read, none of them ours to touch. */
const REWARD = 'node "C:\\Program Files\\rewards\\score.mjs" --label "a b" & echo %AIP_TASK_ID% ^& done';
const COMSPEC = 'C:\\Windows\\system32\\cmd.exe';

/** Runs fn with process.platform reading as the given platform, and puts it back. */
function asPlatform<T>(platform: NodeJS.Platform, fn: () => T): T {
  const real = Object.getOwnPropertyDescriptor(process, 'platform')!;
  Object.defineProperty(process, 'platform', { ...real, value: platform });
  try {
    return fn();
  } finally {
    Object.defineProperty(process, 'platform', real);
  }
}

afterEach(() => {
  vi.unstubAllEnvs();
});

describe('the reward command', () => {
  it.each(['linux', 'darwin'] as const)(
    'on %s: /bin/sh -c, the command untouched, in a group of its own',
    (platform) => {
      const plan = shellCommandPlan(REWARD, { ComSpec: COMSPEC }, platform);
      expect(plan.file).toBe('/bin/sh');
      expect(plan.args).toEqual(['-c', REWARD]);
      expect(plan.options).toEqual({ detached: true });
      expect(plan.killAfterExit).toBe(true);
    },
  );

  it('on win32: ComSpec /d /s /c "<command>", verbatim, not detached', () => {
    const plan = shellCommandPlan(REWARD, { ComSpec: COMSPEC }, 'win32');
    expect(plan.file).toBe(COMSPEC);
    expect(plan.args).toEqual([
      '/d',
      '/s',
      '/c',
      '"node "C:\\Program Files\\rewards\\score.mjs" --label "a b" & echo %AIP_TASK_ID% ^& done"',
    ]);
    expect(plan.options).toEqual({ windowsVerbatimArguments: true, windowsHide: true });
    expect(plan.killAfterExit).toBe(false);
  });

  it('on win32: ComSpec by its name in any case, else cmd.exe', () => {
    expect(shellCommandPlan('x', { COMSPEC: 'D:\\cmd.exe' }, 'win32').file).toBe('D:\\cmd.exe');
    expect(shellCommandPlan('x', { Path: 'C:\\bin' }, 'win32').file).toBe('cmd.exe');
    expect(shellCommandPlan('x', { ComSpec: '' }, 'win32').file).toBe('cmd.exe');
  });

  it("on win32: the same file and arguments as Node's own for shell: true", () => {
    vi.stubEnv('comspec', COMSPEC);
    // Node builds them in spawn() from process.platform, then hands them to ChildProcess#spawn:
    // caught there, before anything runs.
    let seen: { file: string; args: string[]; windowsVerbatimArguments?: boolean } | undefined;
    // Internal to Node, so not in its typings; present since child processes are.
    const internal = ChildProcess.prototype as unknown as { spawn(options: typeof seen): void };
    const real = internal.spawn;
    internal.spawn = (options) => {
      seen = options;
      throw new Error('not run');
    };
    try {
      asPlatform('win32', () => expect(() => nodeSpawn(REWARD, { shell: true })).toThrow('not run'));
    } finally {
      internal.spawn = real;
    }
    const plan = shellCommandPlan(REWARD, { ComSpec: COMSPEC }, 'win32');
    expect(seen).toBeDefined();
    expect(seen!.file).toBe(plan.file);
    expect(seen!.args).toEqual([plan.file, ...plan.args]); // Node's args[0] is argv0
    expect(seen!.windowsVerbatimArguments).toBe(plan.options.windowsVerbatimArguments);
  });
});

describe('ending the tree', () => {
  it.each(['linux', 'darwin'] as const)('on %s: SIGKILL to the process group the child leads', (platform) => {
    expect(treeKillPlan(4242, platform)).toEqual({ how: 'signal-group', pid: -4242, signal: 'SIGKILL' });
    expect(shellCommandPlan('x', {}, platform).killTree(4242)).toEqual(treeKillPlan(4242, platform));
  });

  it('on win32: taskkill /pid N /T /F', () => {
    expect(treeKillPlan(4242, 'win32')).toEqual({
      how: 'run',
      file: 'taskkill',
      args: ['/pid', '4242', '/T', '/F'],
    });
    expect(shellCommandPlan('x', {}, 'win32').killTree(4242)).toEqual(treeKillPlan(4242, 'win32'));
  });
});

interface Parsed {
  command: string;
  args: string[];
  options: SpawnOptions;
  /** The program found on PATH, if any. */
  file?: string;
}
interface CrossSpawnInternals {
  _parse(command: string, args: string[], options: SpawnOptions): Parsed;
  _enoent: { verifyENOENT(status: number, parsed: Parsed): NodeJS.ErrnoException | null };
}

/**
 * cross-spawn as it loads on Windows: it and the modules it uses (which, isexe) read the platform once,
 * when loaded, so they are loaded afresh under 'win32' and the copies everything else uses put back.
 * Node's path stays POSIX, which is why the fake PATH holds POSIX directories (joined by ';').
 */
function crossSpawnAsOnWindows(): CrossSpawnInternals {
  const itsOwn = (id: string) =>
    /[\\/]node_modules[\\/](cross-spawn|which|isexe|path-key|shebang-command|shebang-regex)[\\/]/.test(id);
  const saved = Object.entries(require.cache).filter(([id]) => itsOwn(id));
  for (const [id] of saved) delete require.cache[id];
  try {
    return asPlatform('win32', () => require('cross-spawn') as CrossSpawnInternals);
  } finally {
    for (const id of Object.keys(require.cache)) if (itsOwn(id)) delete require.cache[id];
    for (const [id, module] of saved) require.cache[id] = module;
  }
}

describe('a program the user names (traces exec)', () => {
  it('goes through cross-spawn on win32 only', () => {
    expect(programSpawner('win32')).toBe('cross-spawn');
    expect(programSpawner('linux')).toBe('node');
    expect(programSpawner('darwin')).toBe('node');
  });

  it('on win32, cross-spawn finds npm.cmd through PATHEXT and runs it under cmd.exe, every argument escaped', () => {
    const shims = tempDir();
    const tools = tempDir();
    writeFileSync(join(shims, 'npm.cmd'), '@ECHO off\r\nnode npm-cli.js %*\r\n');
    writeFileSync(join(tools, 'git.exe'), 'MZ');
    // Windows' own is in capitals, which its file system matches to npm.cmd; Linux's would not.
    vi.stubEnv('PATHEXT', '.com;.exe;.bat;.cmd');
    vi.stubEnv('comspec', COMSPEC);
    const { _parse, _enoent } = crossSpawnAsOnWindows();
    const env = { PATH: `${shims};${tools}` };

    const npm = _parse('npm', ['test', '--', 'a b', '"q"', '%PATH%', 'x&y', '^'], { env });
    expect(npm.file).toBe(join(shims, 'npm.cmd'));
    expect(npm.command).toBe(COMSPEC);
    expect(npm.args).toEqual([
      '/d',
      '/s',
      '/c',
      '"npm ^"test^" ^"--^" ^"a^ b^" ^"\\^"q\\^"^" ^"^%PATH^%^" ^"x^&y^" ^"^^^""',
    ]);
    expect(npm.options.windowsVerbatimArguments).toBe(true);

    // An .exe needs no shell: it is started as it is, its arguments quoted by Node.
    const git = _parse('git', ['log', '--format=%H'], { env });
    expect(git.file).toBe(join(tools, 'git.exe'));
    expect([git.command, git.args, git.options.windowsVerbatimArguments]).toEqual([
      'git',
      ['log', '--format=%H'],
      undefined,
    ]);

    // Not found: cmd.exe says so with exit status 1, which cross-spawn turns into ENOENT, which traces
    // exec reports as "command not found", 127, as on POSIX.
    const missing = _parse('no-such-tool', [], { env });
    expect(missing.file).toBeUndefined();
    expect(missing.command).toBe(COMSPEC);
    expect(_enoent.verifyENOENT(1, missing)?.code).toBe('ENOENT');
    expect(_enoent.verifyENOENT(1, npm)).toBeNull();

    // The copy aip uses on this platform is the one it was: a program and its arguments, untouched.
    const ordinary = (require('cross-spawn') as CrossSpawnInternals)._parse('npm', ['a b'], { env });
    expect([ordinary.command, ordinary.args]).toEqual(['npm', ['a b']]);
  });
});
