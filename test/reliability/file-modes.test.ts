// What the user gave a file stays when aip rewrites it: its mode (a new file that holds a conversation
// is made 0600), its owner, and when it is a symbolic link, the link (the file at its end is what is
// rewritten, a link to nothing yet makes that file; a link another user planted in a shared directory
// is not followed). And the directory aip owns, its config directory, is 0700 when aip has written
// into it, but no directory aip does not own. Through the real commands (bin/aip.js), against the
// emulator.

import { spawn } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  lchownSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { patience } from '../helpers/patience.js';
import { hasScript, startTerminal } from '../helpers/pty.js';
import { aipEnv, BIN, runAip } from '../helpers/spawn.js';

const MODEL = 'openai/gpt-oss-20b';
const NOBODY = 65534;
const isRoot = process.geteuid?.() === 0;

let root: string;
let emu: TestEmulator;
let n = 0;

/**
 * The timeout of every test here: each runs aip as a process, some up to 18 times one after the other,
 * ~0.2 s each on a quiet machine, seconds each on a busy one (test/helpers/patience.ts).
 */
const PROCESSES_MS = patience(180_000);

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'aip-modes-'));
  // Another user (nobody, below) must be able to reach the directories made in it.
  chmodSync(root, 0o755);
  emu = await startTestEmulator();
});

afterAll(async () => {
  await emu?.close();
  if (root) rmSync(root, { recursive: true, force: true });
});

/** A new directory of the test's, 0755 (as a home directory's subdirectories usually are). */
function dir(name: string): string {
  const path = join(root, `${++n}-${name}`);
  mkdirSync(path, { mode: 0o755 });
  chmodSync(path, 0o755);
  return path;
}

const mode = (path: string) => statSync(path).mode & 0o7777;
const lines = (path: string) =>
  readFileSync(path, 'utf8')
    .trimEnd()
    .split('\n')
    .map((l) => JSON.parse(l) as { role: string; content: string });
const transcript = (...contents: string[]) =>
  contents
    .map((content, i) => `${JSON.stringify({ role: i % 2 ? 'assistant' : 'user', content })}\n`)
    .join('');

function chat(file: string, prompt: string, env: Record<string, string> = {}) {
  return runAip(['chat', '-m', MODEL, '--continue', file, prompt], {
    env: { ...emu.env, AIP_CONFIG_DIR: dir('config'), ...env },
  });
}

describe('a transcript aip rewrites keeps what the user gave it', { timeout: PROCESSES_MS }, () => {
  it('a new one is made 0600 (it holds a conversation); an existing one keeps its mode', async () => {
    const d = dir('transcripts');
    const fresh = join(d, 'new.jsonl');
    let r = await chat(fresh, 'hello');
    expect(r.code, r.stderr).toBe(0);
    expect(mode(fresh)).toBe(0o600);

    for (const kept of [0o600, 0o640, 0o604]) {
      const file = join(d, `kept-${kept.toString(8)}.jsonl`);
      writeFileSync(file, transcript('one', 'two'));
      chmodSync(file, kept);
      r = await chat(file, 'three');
      expect(r.code, r.stderr).toBe(0);
      expect(lines(file)).toHaveLength(4);
      expect(mode(file), file).toBe(kept);
    }
    // Nothing else was made there (a temporary file), and the directory, the user's, was not changed.
    expect(readdirSync(d).sort()).toEqual([
      'kept-600.jsonl',
      'kept-604.jsonl',
      'kept-640.jsonl',
      'new.jsonl',
    ]);
    expect(mode(d)).toBe(0o755);
  });

  it.skipIf(!isRoot)(
    'root rewriting a transcript of another user leaves it theirs, in its mode',
    async () => {
      const d = dir('owned');
      chownSync(d, NOBODY, NOBODY);
      const file = join(d, 'theirs.jsonl');
      writeFileSync(file, transcript('one', 'two'));
      chownSync(file, NOBODY, NOBODY);
      chmodSync(file, 0o640);
      const r = await chat(file, 'three');
      expect(r.code, r.stderr).toBe(0);
      const stat = statSync(file);
      expect([stat.uid, stat.gid, stat.mode & 0o7777]).toEqual([NOBODY, NOBODY, 0o640]);
      expect(lines(file)).toHaveLength(4);
    },
  );

  it('a symbolic link stays a link: the file it points to is rewritten, in its mode', async () => {
    const d = dir('linked');
    const dotfiles = dir('dotfiles');
    const target = join(dotfiles, 'notes.jsonl');
    writeFileSync(target, transcript('one', 'two'));
    chmodSync(target, 0o600);
    const link = join(d, 'notes.jsonl');
    symlinkSync(target, link);
    const r = await chat(link, 'three');
    expect(r.code, r.stderr).toBe(0);
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(readlinkSync(link)).toBe(target);
    expect(lines(target).map((m) => m.content)).toEqual(['one', 'two', 'three', r.stdout.trimEnd()]);
    expect(mode(target)).toBe(0o600);
    // The temporary file was made beside the target, and is gone; nothing was made beside the link.
    expect(readdirSync(d)).toEqual(['notes.jsonl']);
    expect(readdirSync(dotfiles)).toEqual(['notes.jsonl']);

    // A relative link, through a directory that is itself a link.
    const viaDir = join(dir('via'), 'dots');
    symlinkSync(dotfiles, viaDir);
    const relative = join(dotfiles, 'relative.jsonl');
    symlinkSync('notes.jsonl', relative);
    const again = await chat(join(viaDir, 'relative.jsonl'), 'four');
    expect(again.code, again.stderr).toBe(0);
    expect(lstatSync(relative).isSymbolicLink()).toBe(true);
    expect(lines(target)).toHaveLength(6);
  });

  it('a link to nothing yet makes the file it points to (0600), as `>` would', async () => {
    const d = dir('dangling');
    const elsewhere = dir('elsewhere');
    const link = join(d, 'notes.jsonl');
    symlinkSync(join(elsewhere, 'made.jsonl'), link);
    const r = await chat(link, 'hello');
    expect(r.code, r.stderr).toBe(0);
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(lines(join(elsewhere, 'made.jsonl')).map((m) => m.content)).toEqual(['hello', r.stdout.trimEnd()]);
    expect(mode(join(elsewhere, 'made.jsonl'))).toBe(0o600);

    // Pointing into a directory that does not exist: refused before anything is sent.
    const nowhere = join(d, 'nowhere.jsonl');
    symlinkSync(join(elsewhere, 'missing', 'x.jsonl'), nowhere);
    const before = (await emu.requests({ method: 'POST' })).length;
    const refused = await chat(nowhere, 'hello');
    expect(refused.code).toBe(2);
    expect(refused.stderr).toBe(
      `error: cannot write ${nowhere}: its directory does not exist (ENOENT); nothing was sent\n`,
    );
    expect((await emu.requests({ method: 'POST' })).length).toBe(before);
    expect(lstatSync(nowhere).isSymbolicLink()).toBe(true);
  });

  it.skipIf(!isRoot)(
    'a link another user planted in a shared directory (sticky, writable by all) is not followed',
    async () => {
      const shared = dir('shared');
      chmodSync(shared, 0o1777);
      const victim = join(dir('victim'), 'precious.jsonl');
      writeFileSync(victim, transcript('mine'));
      const planted = join(shared, 'notes.jsonl');
      symlinkSync(victim, planted);
      lchownSync(planted, NOBODY, NOBODY);
      const before = (await emu.requests({ method: 'POST' })).length;
      const r = await chat(planted, 'hello');
      expect(r.code).toBe(2);
      expect(r.stderr).toBe(
        `error: cannot write ${planted}: it is a symbolic link another user made in a shared directory (${shared}), which aip does not follow (EACCES); nothing was sent\n`,
      );
      expect((await emu.requests({ method: 'POST' })).length).toBe(before);
      const g = await runAip(['traces', 'generate', '--spans', '3', '-o', planted], {
        env: { AIP_CONFIG_DIR: dir('config') },
      });
      expect(g.code).toBe(2);
      expect(g.stderr).toMatch(/^error: cannot write .*: it is a symbolic link another user made/);
      expect(readFileSync(victim, 'utf8')).toBe(transcript('mine'));
      expect(lstatSync(planted).isSymbolicLink()).toBe(true);
      // A link of the directory's owner, or of this user, is followed as anywhere else.
      lchownSync(planted, 0, 0);
      const own = await chat(planted, 'hello');
      expect(own.code, own.stderr).toBe(0);
      expect(lines(victim)).toHaveLength(3);
    },
  );

  it.runIf(hasScript)('/save in the REPL: a new file 0600, a link followed, a mode kept', async () => {
    const d = dir('repl');
    const target = join(dir('repl-target'), 'kept.jsonl');
    writeFileSync(target, '');
    chmodSync(target, 0o640);
    symlinkSync(target, join(d, 'link.jsonl'));
    const term = startTerminal(['chat', '-m', MODEL], {
      ...emu.env,
      AIP_CONFIG_DIR: dir('config'),
      NO_COLOR: '1',
    });
    try {
      await term.waitFor(/> $/);
      const asked = term.screen().length;
      term.type('hello\r');
      await term.waitFor(/\n> $/, asked);
      for (const name of ['new.jsonl', 'link.jsonl']) {
        const from = term.screen().length;
        term.type(`/save ${join(d, name)}\r`);
        await term.waitFor(`(saved 2 messages to ${join(d, name)})`, from);
      }
      term.type('\u0004');
      expect(await term.exited).toBe(0);
    } finally {
      term.kill();
    }
    expect(mode(join(d, 'new.jsonl'))).toBe(0o600);
    expect(lstatSync(join(d, 'link.jsonl')).isSymbolicLink()).toBe(true);
    expect(lines(target)).toHaveLength(2);
    expect(mode(target)).toBe(0o640);
  });
});

describe('the config, the local records, the emulator record', { timeout: PROCESSES_MS }, () => {
  it('the config is 0600 whatever it was (it may hold a key); a link to it stays, even one to nothing yet', async () => {
    const config = dir('config');
    const dotfiles = dir('dotfiles');
    const target = join(dotfiles, 'aip.json');
    writeFileSync(target, '{"profiles": {}}');
    chmodSync(target, 0o644);
    symlinkSync(target, join(config, 'config.json'));
    let r = await runAip(['config', 'set', 'project', 'team/one'], { env: { AIP_CONFIG_DIR: config } });
    expect(r.code, r.stderr).toBe(0);
    expect(lstatSync(join(config, 'config.json')).isSymbolicLink()).toBe(true);
    expect(JSON.parse(readFileSync(target, 'utf8'))).toEqual({
      profiles: { default: { project: 'team/one' } },
    });
    expect(mode(target)).toBe(0o600);
    expect(readdirSync(dotfiles)).toEqual(['aip.json']);

    // A link to a file not made yet (dotfiles checked out, the file not written yet): made there.
    const fresh = dir('config');
    const later = join(dotfiles, 'later.json');
    symlinkSync(later, join(fresh, 'config.json'));
    r = await runAip(['config', 'set', 'project', 'team/two'], { env: { AIP_CONFIG_DIR: fresh } });
    expect(r.code, r.stderr).toBe(0);
    expect(lstatSync(join(fresh, 'config.json')).isSymbolicLink()).toBe(true);
    expect(JSON.parse(readFileSync(later, 'utf8'))).toEqual({
      profiles: { default: { project: 'team/two' } },
    });
    expect(mode(later)).toBe(0o600);
    expect(readdirSync(fresh)).toEqual(['config.json']);
  });

  it('the local record through a link: the file it points to is rewritten', async () => {
    const config = dir('config');
    const target = join(dir('kept'), 'models.json');
    writeFileSync(target, '{"models": []}');
    symlinkSync(target, join(config, 'models.json'));
    const r = await runAip(
      ['models', 'create', '--name', 'linked', '--base-model', 'OpenPipe/Qwen3-14B-Instruct', '-q'],
      { env: { ...emu.env, AIP_CONFIG_DIR: config, AIP_PROJECT: 'local/demo' } },
    );
    expect(r.code, r.stderr).toBe(0);
    expect(lstatSync(join(config, 'models.json')).isSymbolicLink()).toBe(true);
    expect(JSON.parse(readFileSync(target, 'utf8')).models.map((m: { name: string }) => m.name)).toEqual([
      'linked',
    ]);
  });
});

describe('the directory aip owns is 0700 once aip has written into it; no other is changed', {
  timeout: PROCESSES_MS,
}, () => {
  it('made 0700, parents included, when aip makes it', async () => {
    const home = dir('home');
    const r = await runAip(['config', 'set', 'project', 'team/p'], { env: { HOME: home } });
    expect(r.code, r.stderr).toBe(0);
    expect(mode(join(home, '.config'))).toBe(0o700);
    expect(mode(join(home, '.config', 'aip'))).toBe(0o700);
    expect(mode(join(home, '.config', 'aip', 'config.json'))).toBe(0o600);
  });

  it('made 0700 again by config set, auth login and logout, models create, emulator --detach', async () => {
    const cases: Array<[string, (config: string) => Promise<{ code: number | null; stderr: string }>]> = [
      ['config set', (c) => runAip(['config', 'set', 'project', 'team/p'], { env: { AIP_CONFIG_DIR: c } })],
      [
        'auth login',
        (c) =>
          runAip(['auth', 'login', '--with-key'], {
            env: { ...emu.env, AIP_API_KEY: '', AIP_CONFIG_DIR: c },
            stdin: emu.key,
          }),
      ],
      [
        'auth logout',
        (c) => {
          writeFileSync(
            join(c, 'config.json'),
            '{"profiles": {"default": {"api-key": "k-0123456789abcdef"}}}',
            {
              mode: 0o600,
            },
          );
          return runAip(['auth', 'logout'], { env: { AIP_CONFIG_DIR: c } });
        },
      ],
      [
        'models create',
        (c) =>
          runAip(
            ['models', 'create', '--name', `m${n}`, '--base-model', 'OpenPipe/Qwen3-14B-Instruct', '-q'],
            {
              env: { ...emu.env, AIP_CONFIG_DIR: c, AIP_PROJECT: 'local/demo' },
            },
          ),
      ],
    ];
    for (const [what, run] of cases) {
      for (const open of [0o755, 0o775, 0o777, 0o750]) {
        const config = dir('config');
        chmodSync(config, open);
        const r = await run(config);
        expect(r.code, `${what}: ${r.stderr}`).toBe(0);
        expect(mode(config), `${what} in a ${open.toString(8)} directory`).toBe(0o700);
      }
    }
    // The emulator's record and log are written there too.
    const config = dir('config');
    const env = { AIP_CONFIG_DIR: config };
    const started = await runAip(['emulator', '--detach', '--port', '0', '--ephemeral', '--json'], { env });
    try {
      expect(started.code, started.stderr).toBe(0);
      expect(mode(config)).toBe(0o700);
      expect(mode(join(config, 'emulator.json'))).toBe(0o600);
      expect(mode(join(config, 'emulator.log'))).toBe(0o600);
    } finally {
      await runAip(['emulator', 'stop'], { env });
    }
  });

  it('never a directory aip does not own: a transcript’s, generate -o’s, a shared or another user’s', async () => {
    const mine = dir('mine');
    chmodSync(mine, 0o775);
    let r = await chat(join(mine, 'notes.jsonl'), 'hi');
    expect(r.code, r.stderr).toBe(0);
    r = await runAip(['traces', 'generate', '--spans', '3', '-o', join(mine, 'spans.jsonl')], {
      env: { AIP_CONFIG_DIR: dir('config') },
    });
    expect(r.code, r.stderr).toBe(0);
    expect(mode(mine)).toBe(0o775);

    // AIP_CONFIG_DIR naming a shared directory (sticky) or, for root, another user's: left as it is.
    const shared = dir('shared');
    chmodSync(shared, 0o1777);
    r = await runAip(['config', 'set', 'project', 'team/p'], { env: { AIP_CONFIG_DIR: shared } });
    expect(r.code, r.stderr).toBe(0);
    expect(mode(shared)).toBe(0o1777);
    if (isRoot) {
      const theirs = dir('theirs');
      chownSync(theirs, NOBODY, NOBODY);
      r = await runAip(['config', 'set', 'project', 'team/p'], { env: { AIP_CONFIG_DIR: theirs } });
      expect(r.code, r.stderr).toBe(0);
      expect(mode(theirs)).toBe(0o755);
    }
  });

  it.skipIf(!isRoot)('as the user who owns it (not root), too', async () => {
    const config = dir('config');
    chownSync(config, NOBODY, NOBODY);
    const r = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
      const child = spawn(process.execPath, [BIN, 'config', 'set', 'project', 'team/p'], {
        env: aipEnv({ AIP_CONFIG_DIR: config }),
        uid: NOBODY,
        gid: NOBODY,
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      let stderr = '';
      child.stderr.on('data', (d) => {
        stderr += d;
      });
      child.on('close', (code) => resolve({ code, stderr }));
    });
    expect(r.code, r.stderr).toBe(0);
    expect(mode(config)).toBe(0o700);
    expect(statSync(join(config, 'config.json')).uid).toBe(NOBODY);
  });
});
