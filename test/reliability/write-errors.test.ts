// Every command that writes a file, against every way a write fails for real: a full disk (ENOSPC, a
// tmpfs of a few hundred KiB), a quota (EDQUOT, a btrfs qgroup on a loop device), a read-only file
// system (EROFS, a tmpfs remounted read-only) and a directory that is not the user's (EACCES, aip run
// as nobody). Each ends with one line naming the file, what failed in words and its code, and what
// to do; with the exit code its case has (src/fs/write-error.ts: 2 when nothing was done, 1 when a
// chat reply was received but not saved, a warning under exit 0 when only a local record could not
// remember what was done); with the old file as it was, and no temporary file, lock or spool left.
//
// Mounting needs root (or a user namespace): where it is not permitted, the kinds that need it are
// skipped, saying why. EDQUOT needs mkfs.btrfs (btrfs-progs) as well; without it, it is skipped
// likewise, and its message is checked in-process only. The table at the end says which kinds ran
// for real.

import { type ChildProcess, execFileSync, spawn, spawnSync } from 'node:child_process';
import {
  chmodSync,
  closeSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { patience } from '../helpers/patience.js';
import { freePort } from '../helpers/ports.js';
import { hasScript } from '../helpers/pty.js';
import { AS_ANOTHER_USER, aipEnv, BIN, runAip, type Spawned } from '../helpers/spawn.js';
import { leftInTemp } from '../helpers/temp.js';

type Kind = 'ENOSPC' | 'EDQUOT' | 'EROFS' | 'EACCES';
const KINDS: Kind[] = ['ENOSPC', 'EDQUOT', 'EROFS', 'EACCES'];
const REASON: Record<Kind, string> = {
  ENOSPC: 'no space left on the device (ENOSPC)',
  EDQUOT: 'disk quota exceeded (EDQUOT)',
  EROFS: 'read-only file system (EROFS)',
  EACCES: 'permission denied (EACCES)',
};
const MODEL = 'openai/gpt-oss-20b';
const NOBODY = 65534;
const isRoot = process.geteuid?.() === 0;

let root: string;
let emu: TestEmulator;
/** Every mount made, unmounted in afterAll whatever happened (the innermost first). */
const mounts: string[] = [];
const loops: string[] = [];
/** What each kind ran on: for the table at the end. */
const how = new Map<Kind, string>();
const matrix: string[] = [];

function sh(command: string, args: string[]): string {
  return execFileSync(command, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

const canMount = (() => {
  if (process.platform !== 'linux') return 'not Linux';
  const probe = mkdtempSync(join(tmpdir(), 'aip-mount-probe-'));
  try {
    sh('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', probe]);
    sh('umount', [probe]);
    return true;
  } catch (error) {
    return `mount is not permitted here (${(error as Error).message.split('\n')[0]})`;
  } finally {
    rmSync(probe, { recursive: true, force: true });
  }
})();
const hasBtrfs = spawnSync('sh', ['-c', 'command -v mkfs.btrfs && command -v btrfs']).status === 0;

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'aip-write-errors-'));
  // nobody (EACCES) must reach what is in it.
  chmodSync(root, 0o755);
  emu = await startTestEmulator();
});

afterAll(async () => {
  for (const dir of mounts.reverse()) {
    try {
      sh('umount', [dir]);
    } catch {
      try {
        sh('umount', ['-l', dir]);
      } catch {
        // gone already
      }
    }
  }
  for (const loop of loops) spawnSync('losetup', ['-d', loop]);
  await emu?.close();
  if (root) rmSync(root, { recursive: true, force: true });
  console.log(
    `write errors: what each kind ran on\n${KINDS.map((k) => `  ${k}: ${how.get(k) ?? 'not run'}`).join('\n')}\n${matrix.join('\n')}`,
  );
});

/** Fills the file system `dir` is on: a file of zeros written until the system refuses. */
function fill(dir: string): void {
  const fd = openSync(join(dir, '.filler'), 'w');
  try {
    for (const size of [1 << 16, 4096, 512, 1]) {
      const chunk = Buffer.alloc(size);
      try {
        for (;;) writeSync(fd, chunk);
      } catch (error) {
        // EDQUOT: Node's libuv has no name for it ("Unknown system error -122", or UNKNOWN).
        const { code, errno } = error as NodeJS.ErrnoException;
        if (code !== 'ENOSPC' && code !== 'EDQUOT' && errno !== -122) throw error;
      }
    }
  } finally {
    closeSync(fd);
  }
  spawnSync('sync', [join(dir, '.filler')]);
}

/**
 * Where writes fail: `tight` (nothing more can be written there) and `roomy` (room for a little, not
 * for a few MB: a write fails part-way), set up by `prepare` first, then made to fail by `arm`.
 */
interface Place {
  tight: string;
  roomy: string;
  /** The user aip runs as: nobody for EACCES (root is not refused anything). */
  user?: { uid: number; gid: number };
  arm(): void;
}

function tmpfs(dir: string, size: string): void {
  mkdirSync(dir, { recursive: true });
  sh('mount', ['-t', 'tmpfs', '-o', `size=${size},mode=0755`, 'tmpfs', dir]);
  mounts.push(dir);
}

/** The place for a kind, or why it cannot be made here. */
function place(kind: Kind): Place | string {
  const base = join(root, kind);
  mkdirSync(base, { mode: 0o755 });
  chmodSync(base, 0o755);
  if (kind === 'EACCES') {
    // Files of root's (or, not being root, files and directories made read-only) that aip may read but not write.
    const tight = join(base, 'dir');
    mkdirSync(tight, { mode: 0o755 });
    how.set(
      kind,
      isRoot
        ? 'real: aip run as nobody (uid 65534) on directories of root, 0755'
        : 'real: 0555 directories of this user',
    );
    return {
      tight,
      roomy: tight,
      user: isRoot ? { uid: NOBODY, gid: NOBODY } : undefined,
      arm() {
        // Readable by all, writable by root only (or, as a user, by nobody).
        const walk = (dir: string) => {
          for (const name of readdirSync(dir)) {
            const path = join(dir, name);
            if (statSync(path).isDirectory()) walk(path);
            else chmodSync(path, isRoot ? 0o644 : 0o444);
          }
          chmodSync(dir, isRoot ? 0o755 : 0o555);
        };
        walk(tight);
      },
    };
  }
  if (canMount !== true) return canMount;
  if (kind === 'ENOSPC') {
    how.set(kind, 'real: tmpfs of 256 KiB, filled (tight), and of 512 KiB (roomy)');
    tmpfs(join(base, 'tight'), '256k');
    tmpfs(join(base, 'roomy'), '512k');
    return { tight: join(base, 'tight'), roomy: join(base, 'roomy'), arm: () => fill(join(base, 'tight')) };
  }
  if (kind === 'EROFS') {
    how.set(kind, 'real: tmpfs of 4 MiB, remounted read-only');
    tmpfs(base, '4m');
    mkdirSync(join(base, 'dir'));
    return {
      tight: join(base, 'dir'),
      roomy: join(base, 'dir'),
      arm: () => sh('mount', ['-o', 'remount,ro', base]),
    };
  }
  // EDQUOT: tmpfs quotas need CONFIG_TMPFS_QUOTA, which kernels often lack; btrfs qgroups do not.
  if (!hasBtrfs) return 'mkfs.btrfs not found (install btrfs-progs): EDQUOT is checked in-process only';
  try {
    const image = join(root, 'quota.img');
    writeFileSync(image, '');
    sh('truncate', ['-s', '160M', image]);
    sh('mkfs.btrfs', ['-q', image]);
    const fs = join(base, 'fs');
    mkdirSync(fs);
    const loop = sh('losetup', ['--find', '--show', image]).trim();
    loops.push(loop);
    sh('mount', [loop, fs]);
    mounts.push(fs);
    sh('btrfs', ['quota', 'enable', fs]);
    for (const [name, limit] of [
      ['tight', '256k'],
      ['roomy', '1m'],
    ] as const) {
      sh('btrfs', ['subvolume', 'create', join(fs, name)]);
      sh('btrfs', ['qgroup', 'limit', limit, join(fs, name)]);
    }
    how.set(
      kind,
      'real: btrfs on a loop device, qgroup limits of 256 KiB, filled (tight), and 1 MiB (roomy)',
    );
    return { tight: join(fs, 'tight'), roomy: join(fs, 'roomy'), arm: () => fill(join(fs, 'tight')) };
  } catch (error) {
    return `a btrfs quota could not be set up (${(error as Error).message.split('\n')[0]})`;
  }
}

/** The REPL on a pseudo-terminal (util-linux script), as `user`: types `lines`, then Ctrl-D. */
function repl(
  args: string[],
  env: Record<string, string>,
  user: Place['user'],
  steps: Array<{ type: string; until: RegExp }>,
): Promise<{ code: number | null; screen: string }> {
  const quoted = [process.execPath, BIN, ...args].map((a) => `'${a.replaceAll("'", "'\\''")}'`).join(' ');
  const child: ChildProcess = spawn(
    'script',
    ['-qec', `stty cols 250 rows 50; exec ${quoted}`, '/dev/null'],
    {
      env: aipEnv({ ...(user ? AS_ANOTHER_USER : {}), ...env }),
      stdio: ['pipe', 'pipe', 'pipe'],
      ...user,
    },
  );
  let screen = '';
  const seen = (d: Buffer) => {
    screen += d.toString().replace(/\u001b\[[0-9;?]*[A-Za-z]|\r/g, '');
  };
  child.stdout!.on('data', seen);
  child.stderr!.on('data', seen);
  // A session that hangs is ended, so that its test fails rather than the file.
  const killer = setTimeout(() => child.kill('SIGKILL'), patience(90_000));
  const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
  return (async () => {
    try {
      const wait = async (pattern: RegExp, from: number) => {
        const deadline = Date.now() + patience(60_000);
        while (!pattern.test(screen.slice(from))) {
          if (Date.now() > deadline) throw new Error(`${pattern} not on the screen:\n${screen}`);
          await new Promise((r) => setTimeout(r, 10));
        }
      };
      await wait(/> $/, 0);
      for (const step of steps) {
        const from = screen.length;
        child.stdin!.write(`${step.type}\r`);
        await wait(step.until, from);
      }
      child.stdin!.write('\u0004');
      return { code: await exited, screen };
    } finally {
      clearTimeout(killer);
      child.kill('SIGKILL');
    }
  })();
}

/** Names and contents of everything under `dir`: what must be the same after a failed write. */
function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string, prefix: string) => {
    for (const name of readdirSync(d).sort()) {
      if (name === '.filler') continue;
      const path = join(d, name);
      if (statSync(path).isDirectory()) walk(path, `${prefix}${name}/`);
      else out[`${prefix}${name}`] = readFileSync(path, 'utf8');
    }
  };
  walk(dir, '');
  return out;
}

/** Whether anything listens on the port (a detached emulator left running). */
function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

const quote = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const transcript = (...contents: string[]) =>
  contents
    .map((content, i) => `${JSON.stringify({ role: i % 2 ? 'assistant' : 'user', content })}\n`)
    .join('');
const CONFIG = `${JSON.stringify({ profiles: { default: { project: 'team/old', 'api-key': 'old-key-0123456789abcdef' } } }, null, 2)}\n`;

interface Outcome {
  r: Spawned;
}

interface Case {
  command: string;
  /** Needs room for a little (a write that fails part-way). */
  roomy?: boolean;
  /** Makes the old files, before the place is made to fail. */
  prepare(dir: string, kind: Kind): Promise<void> | void;
  run(dir: string, place: Place, kind: Kind): Promise<Outcome>;
  /** The exit code, and the end of the line after the reason: what it means for the command. */
  expect(kind: Kind, dir: string): { code: number; line: RegExp; warning?: boolean };
}

const line = (file: string, kind: Kind, rest = '') =>
  new RegExp(`^error: cannot write ${quote(file)}: ${quote(REASON[kind])}; [^\\n]*${rest}$`);
const warning = (before: string, file: string, kind: Kind) =>
  new RegExp(`^warning: ${quote(before)}[^\\n]*cannot write ${quote(file)}: ${quote(REASON[kind])}`);

let spans: string;
let groups: string;
let modelId: string;

const CASES: Case[] = [
  {
    command: 'config set',
    prepare: (d) => writeFileSync(join(d, 'config.json'), CONFIG, { mode: 0o600 }),
    run: async (d, p) => ({
      r: await runAip(['config', 'set', 'project', 'team/new'], {
        env: { AIP_CONFIG_DIR: d },
        user: p.user,
      }),
    }),
    expect: (k, d) => ({ code: 2, line: line(join(d, 'config.json'), k) }),
  },
  {
    command: 'config unset',
    prepare: (d) => writeFileSync(join(d, 'config.json'), CONFIG, { mode: 0o600 }),
    run: async (d, p) => ({
      r: await runAip(['config', 'unset', 'project'], { env: { AIP_CONFIG_DIR: d }, user: p.user }),
    }),
    expect: (k, d) => ({ code: 2, line: line(join(d, 'config.json'), k) }),
  },
  {
    command: 'auth login',
    prepare: (d) => writeFileSync(join(d, 'config.json'), CONFIG, { mode: 0o600 }),
    run: async (d, p) => ({
      r: await runAip(['auth', 'login', '--with-key'], {
        env: { ...emu.env, AIP_API_KEY: '', AIP_CONFIG_DIR: d },
        stdin: emu.key,
        user: p.user,
      }),
    }),
    expect: (k, d) => ({ code: 2, line: line(join(d, 'config.json'), k) }),
  },
  {
    command: 'auth logout',
    prepare: (d) => writeFileSync(join(d, 'config.json'), CONFIG, { mode: 0o600 }),
    run: async (d, p) => ({
      r: await runAip(['auth', 'logout'], { env: { AIP_CONFIG_DIR: d }, user: p.user }),
    }),
    expect: (k, d) => ({ code: 2, line: line(join(d, 'config.json'), k) }),
  },
  {
    command: 'models create (models.json)',
    prepare: (d) => writeFileSync(join(d, 'models.json'), '{"models": []}\n'),
    run: async (d, p) => ({
      r: await runAip(
        [
          'models',
          'create',
          '--name',
          `m-${Date.now()}`,
          '--base-model',
          'OpenPipe/Qwen3-14B-Instruct',
          '-q',
        ],
        { env: { ...emu.env, AIP_CONFIG_DIR: d, AIP_PROJECT: 'local/demo' }, user: p.user },
      ),
    }),
    // The model exists: the command did what it was asked; the local record only remembers names.
    expect: (k, d) => ({
      code: 0,
      warning: true,
      line: warning('the model was created, but could not be remembered', join(d, 'models.json'), k),
    }),
  },
  {
    command: 'models delete (models.json)',
    async prepare(d, kind) {
      const r = await runCli(
        ['models', 'create', '--name', `doomed-${kind}`, '--base-model', 'OpenPipe/Qwen3-14B-Instruct', '-q'],
        {
          env: { ...emu.env, AIP_CONFIG_DIR: d, AIP_PROJECT: 'local/demo' },
        },
      );
      expect(r.code, r.stderr).toBe(0);
    },
    run: async (d, p, kind) => ({
      r: await runAip(['models', 'delete', `doomed-${kind}`, '--yes'], {
        env: { ...emu.env, AIP_CONFIG_DIR: d, AIP_PROJECT: 'local/demo' },
        user: p.user,
      }),
    }),
    expect: (k, d) => ({
      code: 0,
      warning: true,
      line: warning(
        `the model is gone, but ${join(d, 'models.json')} still names it`,
        join(d, 'models.json'),
        k,
      ),
    }),
  },
  {
    command: 'jobs create (jobs.json)',
    prepare: (d) => writeFileSync(join(d, 'jobs.json'), '{"jobs": []}\n'),
    run: async (d, p) => ({
      r: await runAip(['jobs', 'create', 'rl', '--model', modelId, '--file', groups, '-q'], {
        env: { ...emu.env, AIP_CONFIG_DIR: d, AIP_PROJECT: 'local/demo' },
        user: p.user,
      }),
    }),
    expect: (k, d) => ({
      code: 0,
      warning: true,
      line: warning('the job was created, but could not be remembered', join(d, 'jobs.json'), k),
    }),
  },
  {
    command: 'chat --continue',
    prepare: (d) => writeFileSync(join(d, 'notes.jsonl'), transcript('one', 'two'), { mode: 0o600 }),
    run: async (d, p) => ({
      r: await runAip(['chat', '-m', MODEL, '--continue', join(d, 'notes.jsonl'), 'three'], {
        env: { ...emu.env, AIP_CONFIG_DIR: d },
        user: p.user,
      }),
    }),
    // Permissions and a read-only disk are found before the question is sent; a full disk or a quota
    // only when the reply is written: it was received and shown, so exit 1.
    expect: (k, d) =>
      k === 'EACCES' || k === 'EROFS'
        ? { code: 2, line: line(join(d, 'notes.jsonl'), k, '; nothing was sent') }
        : {
            code: 1,
            line: line(
              join(d, 'notes.jsonl'),
              k,
              `; the reply above was not saved: ${quote(join(d, 'notes.jsonl'))} holds the conversation before it`,
            ),
          },
  },
  {
    command: 'traces generate -o',
    roomy: true,
    prepare: (d) => writeFileSync(join(d, 'spans.jsonl'), 'the old spans\n'),
    run: async (d, p) => ({
      r: await runAip(['traces', 'generate', '--spans', '5000', '-o', join(d, 'spans.jsonl')], {
        env: { AIP_CONFIG_DIR: d },
        user: p.user,
      }),
    }),
    expect: (k, d) => ({ code: 2, line: line(join(d, 'spans.jsonl'), k) }),
  },
  {
    command: 'emulator --detach',
    // An old (empty) log: opening it to append needs no room, so a full disk or a quota meets the record.
    prepare: (d) => writeFileSync(join(d, 'emulator.log'), ''),
    run: async (d, p) => {
      const port = await freePort();
      const r = await runAip(['emulator', '--detach', '--ephemeral', '--port', String(port)], {
        env: { AIP_CONFIG_DIR: d },
        user: p.user,
      });
      // Nothing was left running: without its record it could not be stopped.
      expect(await listening(port), 'an emulator is left running').toBe(false);
      return { r };
    },
    expect: (k, d) =>
      k === 'EACCES' || k === 'EROFS'
        ? { code: 2, line: line(join(d, 'emulator.log'), k, '; the emulator was not started') }
        : { code: 2, line: line(join(d, 'emulator.json'), k, '; the emulator was stopped') },
  },
];

function spoolLine(tmp: string, kind: Kind): RegExp {
  return new RegExp(
    `^error: cannot write the traces spool in ${quote(tmp)}: ${quote(REASON[kind])}; [^\\n]*TMPDIR[^\\n]*; nothing was sent$`,
  );
}

/** The lines aip wrote on stderr that are not notes of its own (a warning about the config's owner). */
const errorLines = (stderr: string) => stderr.split('\n').filter((l) => /^(error|warning):/.test(l));

function checkOne(kind: Kind, c: Case, dir: string, { r }: Outcome, before: Record<string, string>): void {
  const want = c.expect(kind, dir);
  const label = `${c.command} × ${kind}: ${r.stderr}`;
  // Never a stack trace, never "unexpected failure".
  expect(r.stderr, label).not.toMatch(/^\s+at |unexpected failure|node:internal/m);
  expect(r.code, label).toBe(want.code);
  const lines = errorLines(r.stderr).filter(
    (l) => !/can be (changed|read) by|belongs to another user/.test(l),
  );
  expect(lines, label).toHaveLength(1);
  expect(lines[0], label).toMatch(want.line);
  // The old file as it was, nothing left beside it (a temporary file, a lock).
  expect(snapshot(dir), label).toEqual(before);
  matrix.push(`  ${kind.padEnd(6)} ${c.command.padEnd(28)} exit ${r.code}  ${lines[0]}`);
}

describe.each(KINDS)('%s', (kind) => {
  let p: Place | string;
  const dirs = new Map<string, string>();
  const before = new Map<string, Record<string, string>>();
  let tmp: string;

  beforeAll(async () => {
    p = place(kind);
    if (typeof p === 'string') {
      how.set(kind, `skipped: ${p}`);
      console.warn(`write errors: ${kind} skipped: ${p}`);
      return;
    }
    if (!spans) {
      // The input of traces send: large enough to spill past the spool's 8 MB in memory.
      const input = join(root, 'input');
      mkdirSync(input, { mode: 0o755 });
      chmodSync(input, 0o755);
      spans = join(input, 'spans.jsonl');
      const g = await runCli(['traces', 'generate', '--spans', '60000', '-o', spans]);
      expect(g.code, g.stderr).toBe(0);
      chmodSync(spans, 0o644);
      groups = join(input, 'groups.jsonl');
      writeFileSync(groups, '{"trajectories": [{"reward": 1}, {"reward": 0}]}\n', { mode: 0o644 });
      const m = await runCli(
        ['models', 'create', '--name', 'for-jobs', '--base-model', 'OpenPipe/Qwen3-14B-Instruct', '-q'],
        { env: { ...emu.env, AIP_PROJECT: 'local/demo' } },
      );
      expect(m.code, m.stderr).toBe(0);
      modelId = m.stdout.trim();
      expect(modelId).toMatch(/^[0-9a-f-]{36}$/);
    }
    for (const c of CASES) {
      const d = join(c.roomy ? p.roomy : p.tight, c.command.replace(/\W+/g, '-'));
      mkdirSync(d, { mode: 0o755 });
      chmodSync(d, 0o755);
      await c.prepare(d, kind);
      dirs.set(c.command, d);
    }
    tmp = join(p.roomy, 'tmp');
    mkdirSync(tmp, { mode: 0o1777 });
    chmodSync(tmp, p.user ? 0o755 : 0o1777);
    p.arm();
    for (const c of CASES) before.set(c.command, snapshot(dirs.get(c.command)!));
  }, patience(180_000));

  for (const c of CASES) {
    it(c.command, { timeout: patience(180_000) }, async (ctx) => {
      if (typeof p === 'string') return ctx.skip(`${kind} cannot be made here: ${p}`);
      const d = dirs.get(c.command)!;
      checkOne(kind, c, d, await c.run(d, p, kind), before.get(c.command)!);
    });
  }

  it('chat /save in the REPL: said in one line, the conversation goes on', {
    timeout: patience(180_000),
  }, async (ctx) => {
    if (typeof p === 'string') return ctx.skip(`${kind} cannot be made here: ${p}`);
    if (!hasScript) return ctx.skip('util-linux script (a pseudo-terminal) is not installed');
    const d = dirs.get('chat --continue')!;
    const file = join(d, 'notes.jsonl');
    const saved = join(root, `saved-${kind}.jsonl`);
    const { code, screen } = await repl(
      ['chat', '-m', MODEL],
      { ...emu.env, AIP_CONFIG_DIR: d, NO_COLOR: '1' },
      p.user,
      [
        { type: 'hello', until: /\n> $/ },
        { type: `/save ${file}`, until: /\n> $/ },
        ...(p.user ? [] : [{ type: `/save ${saved}`, until: /\(saved 2 messages to / }]),
      ],
    );
    expect(code, screen).toBe(0);
    const lines = screen.split('\n').filter((l) => l.startsWith('error:'));
    expect(lines, screen).toEqual([
      expect.stringMatching(
        new RegExp(
          `^error: cannot write ${quote(file)}: ${quote(REASON[kind])}; [^\\n]*the conversation is still here: /save OTHER-FILE writes it elsewhere$`,
        ),
      ),
    ]);
    expect(screen).not.toMatch(/^\s+at /m);
    expect(snapshot(d)).toEqual(before.get('chat --continue'));
    if (!p.user) expect(readFileSync(saved, 'utf8').split('\n')).toHaveLength(3);
    matrix.push(`  ${kind.padEnd(6)} ${'chat /save (REPL)'.padEnd(28)} stays  ${lines[0]}`);
  });

  for (const [what, args] of [
    // One span a batch: gzipped as they are read, 60,000 spans in batches of 512 would stay within
    // the spool's 8 MB in memory, and the disk would never be written.
    ['traces send (spool, one thread)', ['--batch-spans', '1', '--workers', '0']],
    ['traces send (spool, workers)', ['--batch-spans', '1', '--workers', '2']],
  ] as const) {
    // The spool on worker threads (where the error once escaped as a stack trace) once: with a full disk.
    if (what.includes('workers') && kind !== 'ENOSPC') continue;
    it(what, { timeout: patience(270_000) }, async (ctx) => {
      if (typeof p === 'string') return ctx.skip(`${kind} cannot be made here: ${p}`);
      const sent = (await emu.requests({ method: 'POST' })).length;
      const r = await runAip(['traces', 'send', ...args, spans], {
        env: { ...emu.env, AIP_CONFIG_DIR: join(root, 'nowhere'), AIP_PROJECT: 'local/demo', TMPDIR: tmp },
        user: p.user,
      });
      const label = `${what} × ${kind}: ${r.stderr}`;
      expect(r.stderr, label).not.toMatch(/^\s+at |unexpected failure|node:internal/m);
      expect(r.code, label).toBe(2);
      expect(errorLines(r.stderr), label).toEqual([expect.stringMatching(spoolLine(tmp, kind))]);
      // Nothing was sent, and the spool is gone.
      expect((await emu.requests({ method: 'POST' })).length).toBe(sent);
      expect(leftInTemp(tmp)).toEqual([]);
      matrix.push(`  ${kind.padEnd(6)} ${what.padEnd(28)} exit ${r.code}  ${errorLines(r.stderr)[0]}`);
    });
  }
});

describe('without mounting anything', () => {
  it('traces generate -o /dev/full: ENOSPC on every write, one line, exit 2', async () => {
    const r = await runAip(['traces', 'generate', '--spans', '100', '-o', '/dev/full'], {
      env: { AIP_CONFIG_DIR: join(root, 'nowhere') },
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      'error: cannot write /dev/full: no space left on the device (ENOSPC); free some space and try again; /dev/full is as it was\n',
    );
    expect(existsSync('/dev/full')).toBe(true);
  });

  it('every kind has its words, its code and what to do', async () => {
    const { writeError } = await import('../../src/fs/write-error.js');
    const message = (code: string) => {
      const error = writeError('/d/f', Object.assign(new Error(`${code}: x`), { code })) as Error & {
        hint?: string;
      };
      return `${error.message}; ${error.hint}`;
    };
    expect(message('ENOSPC')).toBe(
      'cannot write /d/f: no space left on the device (ENOSPC); free some space and try again',
    );
    expect(message('EDQUOT')).toBe(
      'cannot write /d/f: disk quota exceeded (EDQUOT); free some space (or have the quota raised) and try again',
    );
    // As Node reports a quota exceeded (libuv 1.46 has no name for it): two shapes, sync and async.
    for (const code of ['UNKNOWN', 'Unknown system error -122']) {
      const error = Object.assign(new Error(`${code}: ${code}, open '/d/f'`), { code, errno: -122 });
      expect((writeError('/d/f', error) as Error).message).toBe(
        'cannot write /d/f: disk quota exceeded (EDQUOT)',
      );
    }
    expect(message('EROFS')).toBe(
      'cannot write /d/f: read-only file system (EROFS); write it elsewhere, or remount the file system read-write',
    );
    expect(message('EACCES')).toBe(
      'cannot write /d/f: permission denied (EACCES); check the permissions of the file and of /d (the new file is made there, then renamed over the old one)',
    );
  });
});
