// Crash safety of every file aip writes, with real processes killed by SIGKILL at random points of a
// write loop: the config, models.json, a chat transcript, the detached emulator's record, the traces
// spool, and `traces generate -o`. After every kill the file must be exactly one of the two versions
// the loop alternates between (never torn, never empty), and whatever the dead process left (a
// temporary file, a lock, a spool) must be gone once the next process has started and written: the
// next writer of the loop, and at the end the real aip command, after which the directory holds the
// file and nothing else.
//
// The writers (crash-writer.ts) import aip's own write functions from src/, bundled here with esbuild;
// `traces generate` and the final commands run bin/aip.js (dist/, built by the global setup). The kill
// points are seeded: the same every run, AIP_TEST_SEED picks others.

import { type ChildProcess, spawn } from 'node:child_process';
import {
  chmodSync,
  copyFileSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { build, stop as stopEsbuild } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { writeFileAtomic } from '../../src/fs/atomic-write.js';
import { updateConfig } from '../../src/settings/json-store.js';
import { removeStaleSpools } from '../../src/traces/send/spool.js';
import { startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { patience } from '../helpers/patience.js';
import { closedPort } from '../helpers/ports.js';
import { TEST_SEED } from '../helpers/seed.js';
import { aipEnv, BIN, runAip } from '../helpers/spawn.js';
import { leftInTemp } from '../helpers/temp.js';
import {
  configVersion,
  daemonVersion,
  recordVersion,
  SPOOL_BATCH_BYTES,
  transcriptVersion,
  type Version,
} from './crash-content.js';

// The run's seed (test/helpers/seed.ts): fixed unless AIP_TEST_SEED says otherwise.
const SEED = TEST_SEED;

/** mulberry32: a small seeded generator, so that a failing run's kill points can be replayed. */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const random = seeded(SEED);

type Kind = 'config' | 'local-record' | 'transcript' | 'daemon' | 'spool' | 'generate';
interface Count {
  killed: number;
  checked: number;
  /** Kills after which the dead process had left a temporary file or spool (it died mid-write). */
  leftTemp: number;
  /** Kills after which it had left its lock (it died holding it). */
  leftLock: number;
}
const counts = new Map<Kind, Count>();
const count = (kind: Kind): Count => {
  const c = counts.get(kind) ?? { killed: 0, checked: 0, leftTemp: 0, leftLock: 0 };
  counts.set(kind, c);
  return c;
};

let root: string;
let writerScript: string;
let emu: TestEmulator;
let deadOrigin: string;
const live = new Set<ChildProcess>();

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'aip-crash-'));
  writerScript = join(root, 'crash-writer.mjs');
  await build({
    entryPoints: [join(import.meta.dirname, 'crash-writer.ts')],
    outfile: writerScript,
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    logLevel: 'error',
    define: { AIP_VERSION: '"0.0.0-test"' },
    banner: {
      js: "import { createRequire as __aipCreateRequire } from 'node:module'; const require = __aipCreateRequire(import.meta.url);",
    },
  });
  // esbuild's service process is not left running after the file.
  await stopEsbuild();
  emu = await startTestEmulator();
  deadOrigin = `http://127.0.0.1:${await closedPort()}`;
});

afterAll(async () => {
  for (const child of live) child.kill('SIGKILL');
  await emu?.close();
  if (root) rmSync(root, { recursive: true, force: true });
  const lines = [...counts].map(
    ([kind, c]) =>
      `  ${kind}: ${c.killed} processes killed, ${c.checked} files checked (of the kills, ${c.leftTemp} left a temporary file or spool${c.leftLock ? ` and ${c.leftLock} a lock` : ''} for the next start to clean)`,
  );
  const total = [...counts.values()].reduce(
    (t, c) => ({ killed: t.killed + c.killed, checked: t.checked + c.checked }),
    { killed: 0, checked: 0 },
  );
  console.log(
    `crash safety (seed ${SEED}): ${total.killed} processes killed, ${total.checked} files checked\n${lines.join('\n')}`,
  );
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function newDir(name: string): string {
  const dir = join(root, name);
  mkdirSync(dir, { recursive: true });
  return dir;
}

/** Starts a process, tracked so that afterAll kills it whatever happens; resolves its exit. */
function start(args: string[], env: Record<string, string>) {
  const child = spawn(process.execPath, args, { env: aipEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
  live.add(child);
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d) => {
    stdout += d;
  });
  child.stderr!.on('data', (d) => {
    stderr += d;
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => {
      live.delete(child);
      resolve({ code, signal });
    }),
  );
  return { child, exited, stdout: () => stdout, stderr: () => stderr };
}

/**
 * Resolves the duration of the process's first complete write (`w <ms>`), as soon as it prints it;
 * fails if the process exits first, or prints none in time. The bound is for a busy machine, where
 * the writer takes seconds to start: a writer stuck on what the last kill left never prints at all.
 */
async function firstWrite(p: ReturnType<typeof start>, within = patience(60_000)): Promise<number> {
  const stdout = p.child.stdout!;
  let onData = () => {};
  let timer: NodeJS.Timeout | undefined;
  try {
    return await new Promise<number>((resolve, reject) => {
      onData = () => {
        const m = p.stdout().match(/^w (\d+)$/m);
        if (m) resolve(Number(m[1]));
      };
      // start() collects stdout with a listener added before this one: p.stdout() has this chunk too.
      stdout.on('data', onData);
      onData();
      p.exited.then(() => reject(new Error(`the writer exited before its first write: ${p.stderr()}`)));
      timer = setTimeout(() => {
        p.child.kill('SIGKILL');
        reject(
          new Error(
            `no complete write within ${within} ms (stuck on what the last kill left?): ${p.stderr()}`,
          ),
        );
      }, within);
    });
  } finally {
    stdout.off('data', onData);
    clearTimeout(timer);
  }
}

async function kill(p: ReturnType<typeof start>): Promise<void> {
  p.child.kill('SIGKILL');
  const { signal, code } = await p.exited;
  if (signal !== 'SIGKILL') throw new Error(`the writer ended by itself (${code}): ${p.stderr()}`);
}

interface LoopSpec {
  kind: Exclude<Kind, 'generate'>;
  kills: number;
  /** The directory the file (or the spool) is in: every other entry there is something left behind. */
  dir: string;
  file: string;
  env?: Record<string, string>;
  /** Which version the file is (throws when it is neither). */
  check: () => Version;
}

/** Lock files keep their name from one process to the next: checked by the final command instead. */
const isLock = (name: string) => name.endsWith('.lock');

/**
 * Kills writers of one kind, one after the other, at random points of their write loop; after each
 * kill checks the file, and once the next writer has written, that the last one's leftovers are gone.
 */
async function killLoop(spec: LoopSpec): Promise<void> {
  const c = count(spec.kind);
  const others = () => readdirSync(spec.dir).filter((name) => join(spec.dir, name) !== spec.file);
  let leftovers: string[] = [];
  for (let k = 0; k < spec.kills; k++) {
    const p = start([writerScript, spec.kind, spec.file, deadOrigin], spec.env ?? {});
    const ms = await firstWrite(p);
    // This process has started and written: what the last one left is gone (cleaned, or reused).
    const still = leftovers.filter((name) => !isLock(name) && existsSync(join(spec.dir, name)));
    expect(still, `left by the process killed before writer ${k + 1}`).toEqual([]);
    // Anywhere in the next two writes.
    await sleep(random() * 2 * Math.max(ms, 5));
    await kill(p);
    c.killed++;
    expect(spec.check, `after kill ${k + 1}`).not.toThrow();
    c.checked++;
    leftovers = others();
    if (leftovers.some((name) => !isLock(name))) c.leftTemp++;
    if (leftovers.some(isLock)) c.leftLock++;
  }
}

const canonical = (value: unknown) => JSON.stringify(value);

/** The version `text` parses to, compared through `canonical`; throws, describing the file, when none. */
function whichVersion(
  file: string,
  parse: (text: string) => unknown,
  versions: Record<Version, string>,
): Version {
  const text = readFileSync(file, 'utf8');
  let parsed: string;
  try {
    parsed = canonical(parse(text));
  } catch (error) {
    throw new Error(`${file} is torn (${text.length} bytes): ${(error as Error).message}`);
  }
  for (const v of ['a', 'b'] as const) if (parsed === versions[v]) return v;
  throw new Error(`${file} is neither version (${text.length} bytes)`);
}

const jsonLines = (text: string) => {
  if (!text.endsWith('\n')) throw new Error('no newline at the end');
  return text
    .slice(0, -1)
    .split('\n')
    .map((line) => JSON.parse(line));
};

/**
 * A test below starts and kills 8 to 12 processes one after the other, then runs aip: a few seconds on
 * a quiet machine, and up to a minute and a half on a busy one, where each process takes seconds to
 * start (test/helpers/patience.ts).
 */
const KILL_LOOP_MS = patience(300_000);

describe('every file aip writes is the old or the new version after a kill -9, and nothing is left', () => {
  it('the config file (mode 0600), then `config set`', { timeout: KILL_LOOP_MS }, async () => {
    const dir = newDir('config');
    const file = join(dir, 'config.json');
    const versions = { a: canonical(configVersion('a')), b: canonical(configVersion('b')) };
    writeFileSync(file, versions.a, { mode: 0o600 });
    const check = () => {
      const v = whichVersion(file, JSON.parse, versions);
      expect(statSync(file).mode & 0o777).toBe(0o600);
      return v;
    };
    // SNAP set, as for a Node installed as a snap: conf would write in place, were it not hidden from it.
    await killLoop({ kind: 'config', kills: 10, dir, file, check, env: { SNAP: '/snap/node/1' } });
    const before = check();
    const r = await runAip(['--profile', 'p0', 'config', 'set', 'project', 'team/final'], {
      env: { AIP_CONFIG_DIR: dir },
    });
    expect(r.code, r.stderr).toBe(0);
    expect(readdirSync(dir)).toEqual(['config.json']);
    const expected = configVersion(before);
    expected.profiles.p0!.project = 'team/final';
    expect(canonical(JSON.parse(readFileSync(file, 'utf8')))).toBe(canonical(expected));
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  it('models.json, then `models create`', { timeout: KILL_LOOP_MS }, async () => {
    const dir = newDir('local-record');
    const file = join(dir, 'models.json');
    const versions = { a: canonical(recordVersion('a')), b: canonical(recordVersion('b')) };
    writeFileSync(file, versions.a, { mode: 0o600 });
    const check = () => whichVersion(file, JSON.parse, versions);
    await killLoop({ kind: 'local-record', kills: 8, dir, file, check });
    const before = check();
    const r = await runAip(
      ['models', 'create', '--name', 'final', '--base-model', 'OpenPipe/Qwen3-14B-Instruct', '-q'],
      { env: { ...emu.env, AIP_CONFIG_DIR: dir, AIP_PROJECT: 'local/demo' } },
    );
    expect(r.code, r.stderr).toBe(0);
    expect(readdirSync(dir)).toEqual(['models.json']);
    const models = (JSON.parse(readFileSync(file, 'utf8')) as { models: Array<{ name: string }> }).models;
    expect(canonical(models.slice(0, -1))).toBe(canonical(recordVersion(before).models));
    expect(models.at(-1)?.name).toBe('final');
  });

  it('a chat transcript, then `chat --continue`', { timeout: KILL_LOOP_MS }, async () => {
    const dir = newDir('transcript');
    const file = join(dir, 'notes.jsonl');
    const versions = { a: canonical(transcriptVersion('a')), b: canonical(transcriptVersion('b')) };
    const lines = (v: Version) =>
      transcriptVersion(v)
        .map((m) => `${JSON.stringify(m)}\n`)
        .join('');
    writeFileSync(file, lines('a'), { mode: 0o600 });
    const check = () => whichVersion(file, jsonLines, versions);
    await killLoop({ kind: 'transcript', kills: 12, dir, file, check });
    const before = check();
    const r = await runAip(['chat', '-m', 'openai/gpt-oss-20b', '--continue', file, 'final question'], {
      env: { ...emu.env, AIP_CONFIG_DIR: newDir('transcript-config'), AIP_PROJECT: 'local/demo' },
    });
    expect(r.code, r.stderr).toBe(0);
    expect(readdirSync(dir)).toEqual(['notes.jsonl']);
    const messages = jsonLines(readFileSync(file, 'utf8'));
    expect(canonical(messages.slice(0, -2))).toBe(versions[before]);
    expect(messages.slice(-2)).toEqual([
      { role: 'user', content: 'final question' },
      { role: 'assistant', content: r.stdout.trimEnd() },
    ]);
  });

  it("the detached emulator's record, then `emulator stop`", { timeout: KILL_LOOP_MS }, async () => {
    const dir = newDir('daemon');
    const file = join(dir, 'emulator.json');
    const versions = {
      a: canonical(daemonVersion('a', deadOrigin)),
      b: canonical(daemonVersion('b', deadOrigin)),
    };
    writeFileSync(file, versions.a, { mode: 0o600 });
    const check = () => {
      const v = whichVersion(file, JSON.parse, versions);
      expect(statSync(file).mode & 0o777).toBe(0o600);
      return v;
    };
    await killLoop({ kind: 'daemon', kills: 10, dir, file, check });
    // The record names a dead emulator: stop removes it, and anything a killed writer left with it.
    const r = await runAip(['emulator', 'stop'], { env: { AIP_CONFIG_DIR: dir } });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/removed the stale record/);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('the traces spool (0600, in a 0700 directory), then `traces send`', {
    timeout: KILL_LOOP_MS,
  }, async () => {
    const spoolDir = newDir('spool-tmp');
    const env = { TMPDIR: spoolDir };
    // The spool's "file" is a directory per process; what must hold is that none outlives the next start.
    const check = (): Version => {
      for (const name of readdirSync(spoolDir)) {
        expect(statSync(join(spoolDir, name)).mode & 0o777, name).toBe(0o700);
        for (const inner of readdirSync(join(spoolDir, name))) {
          const stat = statSync(join(spoolDir, name, inner));
          expect(stat.mode & 0o777, inner).toBe(0o600);
          expect(stat.size, inner).toBeLessThanOrEqual(12 * SPOOL_BATCH_BYTES);
        }
      }
      return 'a';
    };
    await killLoop({ kind: 'spool', kills: 8, dir: spoolDir, file: join(spoolDir, '-'), env, check });
    const spans = join(newDir('spool-input'), 'spans.jsonl');
    expect((await runAip(['traces', 'generate', '--spans', '20', '-o', spans])).code).toBe(0);
    const r = await runAip(['traces', 'send', '--dry-run', spans], {
      env: { ...env, AIP_PROJECT: 'local/demo', AIP_CONFIG_DIR: newDir('spool-config') },
    });
    expect(r.code, r.stderr).toBe(0);
    expect(leftInTemp(spoolDir)).toEqual([]);
  });

  it('`traces generate -o`, killed anywhere in its run, then run again', {
    timeout: KILL_LOOP_MS,
  }, async () => {
    const c = count('generate');
    const refs = newDir('generate-refs');
    const dir = newDir('generate');
    const file = join(dir, 'spans.jsonl');
    const args = (v: Version, out: string) => [
      BIN,
      'traces',
      'generate',
      '--spans',
      '5000',
      '--seed',
      v === 'a' ? '1' : '2',
      '--start',
      '2025-01-01T00:00:00Z',
      '-o',
      out,
    ];
    const env = { AIP_CONFIG_DIR: newDir('generate-config') };
    // The two versions, and how long one whole run takes.
    const started = Date.now();
    for (const v of ['a', 'b'] as const) {
      const p = start(args(v, join(refs, v)), env);
      expect((await p.exited).code, p.stderr()).toBe(0);
    }
    const runMs = (Date.now() - started) / 2;
    const versions = { a: readFileSync(join(refs, 'a')), b: readFileSync(join(refs, 'b')) };
    copyFileSync(join(refs, 'a'), file);
    const check = () => {
      const bytes = readFileSync(file);
      if (!bytes.equals(versions.a) && !bytes.equals(versions.b))
        throw new Error(`${file} is neither version (${bytes.length} bytes): torn`);
    };
    for (let k = 0; c.killed < 10 && k < 30; k++) {
      const p = start(args(k % 2 === 0 ? 'b' : 'a', file), env);
      await sleep(random() * runMs);
      p.child.kill('SIGKILL');
      const { signal } = await p.exited;
      if (signal === 'SIGKILL') c.killed++;
      expect(check, `after run ${k + 1}`).not.toThrow();
      c.checked++;
      if (signal === 'SIGKILL' && readdirSync(dir).length > 1) c.leftTemp++;
    }
    expect(c.killed).toBe(10);
    const r = await runAip(args('b', file).slice(1), { env });
    expect(r.code, r.stderr).toBe(0);
    expect(readdirSync(dir)).toEqual(['spans.jsonl']);
    expect(readFileSync(file).equals(versions.b)).toBe(true);
  });
});

describe('the write path in detail', () => {
  it('keeps the mode of an existing file, or sets the one asked for; follows a link only when asked', () => {
    const dir = newDir('detail-modes');
    const file = join(dir, 'kept');
    writeFileSync(file, 'old');
    chmodSync(file, 0o640);
    writeFileAtomic(file, 'new');
    expect([readFileSync(file, 'utf8'), statSync(file).mode & 0o777]).toEqual(['new', 0o640]);
    writeFileAtomic(file, 'private', { mode: 0o600 });
    expect(statSync(file).mode & 0o777).toBe(0o600);
    // Through a link: the file it points to is written, the link stays (the config, generate -o) …
    symlinkSync(file, join(dir, 'link'));
    writeFileAtomic(join(dir, 'link'), 'through', { followSymlinks: true });
    expect([lstatSync(join(dir, 'link')).isSymbolicLink(), readFileSync(file, 'utf8')]).toEqual([
      true,
      'through',
    ]);
    // … or the link is replaced (transcripts, as before).
    writeFileAtomic(join(dir, 'link'), 'replaced');
    expect([lstatSync(join(dir, 'link')).isFile(), readFileSync(file, 'utf8')]).toEqual([true, 'through']);
    // A link to nothing yet, followed: the file is made where it points.
    symlinkSync('made', join(dir, 'dangling'));
    writeFileAtomic(join(dir, 'dangling'), 'made', { followSymlinks: true });
    expect(readFileSync(join(dir, 'made'), 'utf8')).toBe('made');
    expect(lstatSync(join(dir, 'dangling')).isSymbolicLink()).toBe(true);
    expect(readdirSync(dir).sort()).toEqual(['dangling', 'kept', 'link', 'made']);
  });

  it('writes what is not a regular file (/dev/null, a pipe) in place: it cannot be replaced', () => {
    writeFileAtomic('/dev/null', 'nothing');
    expect(statSync('/dev/null').isCharacterDevice()).toBe(true);
  });

  it('takes over at once a lock whose process is gone, and removes the temporary file conf left', async () => {
    const dir = newDir('detail-lock');
    const file = join(dir, 'config.json');
    const dead = start(['-e', ''], {});
    await dead.exited;
    writeFileSync(`${file}.lock`, `${dead.child.pid}@${hostname()}\n`);
    writeFileSync(`${file}.tmp-1763900000abcdef`, '{"half": ');
    // At once: without a single wait for the lock (a live owner's lock is waited for in steps of 5 to
    // 100 ms, set with setTimeout). Counted, not timed: on a busy machine the write alone may take
    // seconds.
    const timers = vi.spyOn(globalThis, 'setTimeout');
    let wrote: boolean;
    try {
      wrote = await updateConfig(file, (c) => {
        c.profiles.p = { project: 'a/b' };
      });
    } finally {
      timers.mockRestore();
    }
    expect(wrote).toBe(true);
    expect(timers.mock.calls.map(([, ms]) => ms)).toEqual([]);
    expect(readdirSync(dir)).toEqual(['config.json']);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ profiles: { p: { project: 'a/b' } } });
  });

  it('leaves the temporary files and spools of live processes alone', async () => {
    const dir = newDir('detail-live');
    const file = join(dir, 'notes.jsonl');
    const mine = join(dir, `.notes.jsonl.aip-${process.pid}-0123abcd.tmp`);
    const gone = start(['-e', ''], {});
    await gone.exited;
    const left = join(dir, `.notes.jsonl.aip-${gone.child.pid}-0123abcd.tmp`);
    writeFileSync(mine, '');
    writeFileSync(left, '');
    writeFileAtomic(file, 'x');
    expect(readdirSync(dir).sort()).toEqual([`.notes.jsonl.aip-${process.pid}-0123abcd.tmp`, 'notes.jsonl']);
    const spools = newDir('detail-spools');
    mkdirSync(join(spools, `aip-traces-${process.pid}-abcdef`));
    mkdirSync(join(spools, `aip-traces-${gone.child.pid}-abcdef`));
    removeStaleSpools(spools);
    expect(readdirSync(spools)).toEqual([`aip-traces-${process.pid}-abcdef`]);
  });
});
