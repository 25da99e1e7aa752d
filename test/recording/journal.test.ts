// The write side of the history (src/history/journal.ts, recorder.ts): what a command appends to its
// own journal file as it talks to the platform, and what it never writes or fails over.

import { spawn } from 'node:child_process';
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { HistoryEvent } from '../../src/history/events.js';
import { TEST_KEY, useEmulator } from '../helpers/emulator.js';
import { aipEnv, BIN, collect } from '../helpers/spawn.js';

const t = useEmulator();
const { emu, run } = t;

const journalDir = () => join(t.env.AIP_DATA_DIR!, 'history', 'journal');

function journals(): string[] {
  try {
    return readdirSync(journalDir()).map((name) => join(journalDir(), name));
  } catch {
    return [];
  }
}

const eventsOf = (file: string): HistoryEvent[] =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as HistoryEvent);

const allEvents = () => journals().flatMap(eventsOf);

describe('the history journal', () => {
  it('a command that talks to the platform writes begin … end in a file of its own, 0600', async () => {
    const r = await run(['health', '--json']);
    expect(r.code).toBe(0);
    const files = journals();
    expect(files).toHaveLength(1);
    expect(statSync(files[0]!).mode & 0o777).toBe(0o600);
    expect(statSync(journalDir()).mode & 0o777).toBe(0o700);
    const events = eventsOf(files[0]!);
    expect(events[0]).toMatchObject({
      k: 'begin',
      command: 'health',
      argv: ['health', '--json'],
      profile: 'default',
    });
    expect(events.at(-1)).toMatchObject({ k: 'end', exit: 0 });
    expect(new Set(events.map((e) => e.run)).size).toBe(1);
  });

  it('one that does not (config, help, emulator, completion) writes nothing', async () => {
    for (const argv of [['config', 'list'], ['help', 'exit-codes'], ['--version']]) {
      expect((await run(argv)).code).toBe(0);
    }
    expect(journals()).toEqual([]);
  });

  it('a failure is recorded with its exit code and its message', async () => {
    const r = await run(['jobs', 'get', '00000000-0000-4000-8000-000000000000']);
    expect(r.code).toBe(3);
    const end = allEvents().find((e) => e.k === 'end');
    expect(end).toMatchObject({ k: 'end', exit: 3 });
    expect((end as { error: string }).error).toMatch(/not found|no longer exists|404/i);
  });

  it("records each answer's usage as the emulator answered it, and created ids", async () => {
    expect((await run('models create --name agent --base-model OpenPipe/Qwen3-14B-Instruct -q')).code).toBe(
      0,
    );
    for (const prompt of ['hello', 'a longer question about gradients']) {
      expect((await run(['chat', '--no-stream', '-m', 'OpenPipe/Qwen3-14B-Instruct', prompt])).code).toBe(0);
    }
    const events = allEvents();
    const usage = events.filter((e) => e.k === 'usage');
    const charged = (await emu.requests({ method: 'POST', path: '/inference/v1/chat/completions' })).filter(
      (r) => r.usage,
    );
    expect(usage.map((u) => [u.prompt_tokens, u.completion_tokens])).toEqual(
      charged.map((r) => [r.usage!.prompt_tokens, r.usage!.completion_tokens]),
    );
    expect(usage.every((u) => u.api === 'inference' && u.purpose === 'chat' && u.samples === 1)).toBe(true);
    expect(events.find((e) => e.k === 'created')).toMatchObject({ what: 'model', name: 'local/demo/agent' });
    // Bodies only when asked for.
    expect(events.some((e) => e.k === 'body')).toBe(false);
  });

  it('keeps bodies with AIP_HISTORY=bodies, the key masked wherever it appears', async () => {
    const r = await run(
      ['chat', '--no-stream', '-m', 'OpenPipe/Qwen3-14B-Instruct', `my key is ${TEST_KEY}`],
      {
        env: { AIP_HISTORY: 'bodies' },
      },
    );
    expect(r.code).toBe(0);
    const body = allEvents().find((e) => e.k === 'body');
    expect(body).toBeDefined();
    const text = readFileSync(journals()[0]!, 'utf8');
    expect(text).toContain('my key is ');
    expect(text).not.toContain(TEST_KEY);
  });

  it('keeps no prompt in the command line without bodies, and masks credentials in URLs', async () => {
    const words = [
      'chat',
      '--no-stream',
      '-m',
      'OpenPipe/Qwen3-14B-Instruct',
      '-s',
      'be terse',
      '--message=user:my secret plan',
      'tell me',
      'everything',
    ];
    expect((await run(words)).code).toBe(0);
    const begin = allEvents().find((e) => e.k === 'begin') as { argv: string[] };
    expect(begin.argv).toEqual([
      'chat',
      '--no-stream',
      '-m',
      'OpenPipe/Qwen3-14B-Instruct',
      '-s',
      '<8 characters>',
      '--message=<19 characters>',
      '<7 characters>',
      '<10 characters>',
    ]);
    const text = journals()
      .map((f) => readFileSync(f, 'utf8'))
      .join('');
    for (const said of ['be terse', 'my secret plan', 'tell me']) expect(text).not.toContain(said);

    // With bodies on, the command line is kept as typed (the bodies hold the same words anyway).
    expect(
      (
        await run(['chat', '--no-stream', '-m', 'OpenPipe/Qwen3-14B-Instruct', '-sterse', 'hi there'], {
          env: { AIP_HISTORY: 'bodies' },
        })
      ).code,
    ).toBe(0);
    const kept = allEvents()
      .filter((e) => e.k === 'begin')
      .map((e) => (e as { argv: string[] }).argv);
    expect(kept).toContainEqual([
      'chat',
      '--no-stream',
      '-m',
      'OpenPipe/Qwen3-14B-Instruct',
      '-sterse',
      'hi there',
    ]);
  });

  it('masks a token in a URL given as an argument', async () => {
    const url = 'https://rewards.example/score?token=SUPERSECRET123&x=1';
    const { historyArgv } = await import('../../src/history/recorder.js');
    expect(historyArgv(['rollouts', '--reward-url', url], [])).toEqual([
      'rollouts',
      '--reward-url',
      'https://rewards.example/score?token=****&x=1',
    ]);
  });

  it('is off with AIP_HISTORY=off or `enabled: false` in its settings file', async () => {
    expect((await run(['health'], { env: { AIP_HISTORY: 'off' } })).code).toBe(0);
    expect(journals()).toEqual([]);
    const dir = join(t.env.AIP_DATA_DIR!, 'history');
    (await import('node:fs')).mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'settings.json'), JSON.stringify({ enabled: false, 'history.bodies': false }));
    expect((await run(['health'])).code).toBe(0);
    expect(journals()).toEqual([]);
  });

  it('a history that cannot be written never fails the command: one warning', async () => {
    const blocked = join(t.dir, 'not-a-dir');
    writeFileSync(blocked, '');
    const r = await run(['chat', '--no-stream', '-m', 'OpenPipe/Qwen3-14B-Instruct', 'hi'], {
      env: { AIP_DATA_DIR: blocked },
    });
    expect(r.code).toBe(0);
    expect(r.stdout).not.toBe('');
    expect(r.stderr.match(/history: cannot write/g)).toHaveLength(1);
  });

  it('processes writing at once each keep a whole file of their own', { timeout: 120_000 }, async () => {
    const env = aipEnv({ ...t.env });
    // stdin closed: chat reads a piped stdin as part of the prompt.
    const children = Array.from({ length: 6 }, (_, i) =>
      collect(
        spawn(process.execPath, [BIN, 'chat', '--no-stream', '-m', 'OpenPipe/Qwen3-14B-Instruct', `q${i}`], {
          env,
          stdio: ['ignore', 'pipe', 'pipe'],
        }),
      ),
    );
    const results = await Promise.all(children);
    expect(results.map((r) => r.code)).toEqual([0, 0, 0, 0, 0, 0]);
    const files = journals();
    expect(files).toHaveLength(6);
    for (const file of files) {
      const events = eventsOf(file);
      expect(events[0]!.k).toBe('begin');
      expect(events.at(-1)!.k).toBe('end');
      expect(events.filter((e) => e.k === 'usage')).toHaveLength(1);
    }
  });
});
