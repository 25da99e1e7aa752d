// Every wait aip does is bounded by --timeout, whatever the output mode and whatever a server's
// headers say, and a timeout is named as one, with what was waited for (issue 28): an event stream that
// opens and sends nothing (piped, --json, -q, streamed; both APIs), a Retry-After beyond --timeout (aip's
// own client and the openai SDK's, in seconds and as a date), a backoff longer than --timeout, an answer
// whose head came and whose body did not. The emulator's faults make each (`stall_body_ms`: the head at
// once, the body later). Bounds here only keep a broken client from hanging the test: each is far above
// --timeout and far below what the unbounded wait took (minutes, or the 10-minute stall).

import { describe, expect, it } from 'vitest';
import { openaiClient } from '../../src/api/openai.js';
import { useEmulator } from '../helpers/emulator.js';
import { offlineContext } from '../helpers/offline-context.js';
import { patience } from '../helpers/patience.js';

const { emu, env, run } = useEmulator();

/** Far above any --timeout below, far below the stall (10 minutes) and the waits of the old code. */
const BOUND = patience(30_000);
const MODEL = 'openai/gpt-oss-20b';
const INFERENCE_CHAT = '/inference/v1/chat/completions';
const TRAINING_CHAT = '/training/v1/chat/completions';

/** An event stream that opens (200, text/event-stream) and sends nothing for 10 minutes. */
const muteStream = (path: string) => ({
  method: 'POST',
  path,
  status: 200,
  content_type: 'text/event-stream',
  raw_body: 'data: [DONE]\n\n',
  stall_body_ms: 600_000,
  times: 100,
});

async function timed<T>(work: () => Promise<T>): Promise<T & { ms: number }> {
  const started = Date.now();
  const result = await work();
  return { ...result, ms: Date.now() - started };
}

describe('an event stream that opens and sends nothing', () => {
  const modes: Array<{ name: string; argv: string[]; api?: string; says: RegExp }> = [
    {
      name: 'piped (stdout not a terminal: not streamed)',
      argv: [],
      says: /^error: inference API: timed out: no data for 1s on the event stream answering POST \/inference\/v1\/chat\/completions; raise --timeout/m,
    },
    { name: '--json', argv: ['--json'], says: /timed out: no data for 1s on the event stream/ },
    { name: '--jq', argv: ['--jq', '.choices'], says: /timed out: no data for 1s on the event stream/ },
    { name: '-q', argv: ['-q'], says: /timed out: no data for 1s on the event stream/ },
    { name: '--no-stream', argv: ['--no-stream'], says: /timed out: no data for 1s on the event stream/ },
    {
      name: '--stream',
      argv: ['--stream'],
      says: /^error: inference API: the stream stalled: nothing for 1s after 0 characters/m,
    },
    {
      name: 'the Training API, piped',
      argv: [],
      api: 'training',
      says: /^error: training API: timed out: no data for 1s on the event stream answering POST \/training\/v1\/chat\/completions/m,
    },
  ];
  for (const mode of modes) {
    it(`ends after --timeout, saying so: ${mode.name}`, { timeout: BOUND * 2 }, async () => {
      await emu.fault(muteStream(mode.api === 'training' ? TRAINING_CHAT : INFERENCE_CHAT));
      const api = mode.api ? ['--api', mode.api] : [];
      const r = await timed(() =>
        run(['--timeout', '1', 'chat', '-m', MODEL, ...api, ...mode.argv, 'hi'], { stdin: '' }),
      );
      expect(r.code, r.stderr).toBe(1);
      expect(r.stderr).toMatch(mode.says);
      expect(r.stderr).not.toMatch(/connection was closed/);
      expect(r.ms).toBeLessThan(BOUND);
      // The stream is not asked again: its reply may have begun.
      expect(await emu.requests({ method: 'POST' })).toHaveLength(1);
    });
  }
});

describe('Retry-After beyond --timeout', () => {
  it("aip's own client: not slept, the command ends at once saying what the server asked for", async () => {
    for (const [status, code] of [
      [503, 1],
      [429, 6],
    ] as const) {
      await emu.reset();
      await emu.fault({ path: '/training/v1/health', status, retry_after: 60, times: 10 });
      const r = await run(['--timeout', '20', 'health', '--json']);
      expect(r.code, r.stderr).toBe(code);
      expect(r.stderr).toMatch(/the server asks to retry after 60s, beyond --timeout \(20s\): not waited/);
      expect(r.sleeps).toEqual([]);
      expect(await emu.requests({ path: '/training/v1/health' })).toHaveLength(1);
    }
  });

  it("aip's own client: a Retry-After within --timeout is still honoured", async () => {
    await emu.fault({ path: '/training/v1/health', status: 503, retry_after: 15, times: 1 });
    const r = await run(['--timeout', '20', 'health', '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.sleeps).toEqual([15_000]);
  });

  it("aip's own backoff is bounded by --timeout too", async () => {
    await emu.fault({ path: '/training/v1/health', status: 503, times: 10 });
    const r = await run(['--timeout', '0.2', '--max-retries', '5', 'health', '--json']);
    expect(r.code, r.stderr).toBe(1);
    expect(r.sleeps).toHaveLength(5);
    for (const ms of r.sleeps) expect(ms).toBeLessThanOrEqual(200);
  });

  // The openai SDK sleeps whatever Retry-After it is shown (an hour included), on a timer of its own.
  const sdkCases = [
    {
      name: 'models list, 429, 50 s',
      argv: ['models', 'list'],
      path: '/inference/v1/models',
      status: 429,
      after: 50,
      code: 6,
    },
    {
      name: 'models list, 503, an hour away as a date',
      argv: ['models', 'list'],
      path: '/inference/v1/models',
      status: 503,
      after: 'date',
      code: 1,
    },
    {
      name: 'chat (piped), 429, 50 s',
      argv: ['chat', '-m', MODEL, 'hi'],
      path: INFERENCE_CHAT,
      status: 429,
      after: 50,
      code: 6,
    },
    {
      name: 'chat --stream, 503, 50 s',
      argv: ['chat', '--stream', '-m', MODEL, 'hi'],
      path: INFERENCE_CHAT,
      status: 503,
      after: 50,
      code: 1,
    },
    {
      name: 'chat --json on the Training API, 429, 50 s',
      argv: ['chat', '--json', '--api', 'training', '-m', MODEL, 'hi'],
      path: TRAINING_CHAT,
      status: 429,
      after: 50,
      code: 6,
    },
  ] as const;
  for (const c of sdkCases) {
    it(`the openai SDK: not slept either (${c.name})`, { timeout: BOUND * 2 }, async () => {
      const after = c.after === 'date' ? new Date(Date.now() + 3_600_000).toUTCString() : c.after;
      await emu.fault({ path: c.path, status: c.status, retry_after: after, times: 10 });
      const r = await timed(() => run(['--timeout', '2', ...c.argv], { stdin: '' }));
      expect(r.code, r.stderr).toBe(c.code);
      expect(r.stderr).toMatch(
        c.after === 'date'
          ? /the server asks to retry after (3599|3600)s/
          : /the server asks to retry after 50s, beyond --timeout \(2s\): not waited/,
      );
      expect(r.ms).toBeLessThan(BOUND);
      expect(await emu.requests({ path: c.path })).toHaveLength(1);
    });
  }

  it('the openai SDK: a Retry-After within --timeout is still honoured', { timeout: BOUND * 2 }, async () => {
    await emu.fault({ path: '/inference/v1/models', status: 503, retry_after: 1, times: 1 });
    const r = await run(['--timeout', '20', 'models', 'list', '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(await emu.requests({ path: '/inference/v1/models' })).toHaveLength(2);
  });

  it("the openai SDK retries nothing itself: aip's loop does, its backoff bounded by --timeout", async () => {
    const client = await openaiClient(offlineContext(env), 'inference');
    expect(client.maxRetries).toBe(0);
    // No Retry-After: aip's backoff (0.5 s doubling to 8 s), each pause cut to --timeout (0.3 s).
    await emu.fault({ path: '/inference/v1/models', status: 503, times: 10 });
    const r = await run(['--timeout', '0.3', '--max-retries', '3', 'models', 'list']);
    expect(r.code, r.stderr).toBe(1);
    const pauses = [...r.stderr.matchAll(/retrying in ([\d.]+)s \(retry (\d) of 3\)/g)];
    expect(pauses.map((m) => m[2])).toEqual(['1', '2', '3']);
    for (const [, seconds] of pauses) expect(Number(seconds)).toBeLessThanOrEqual(0.3);
    expect(await emu.requests({ path: '/inference/v1/models' })).toHaveLength(4);
  });
});

describe('an answer whose head comes and whose body does not', () => {
  const cases = [
    { name: "aip's own client (health)", argv: ['health'], path: '/training/v1/health' },
    {
      name: "aip's own client (checkpoints list)",
      argv: ['checkpoints', 'list', '00000000-0000-4000-8000-000000000000'],
      path: '/training/v1/preview/models/*/checkpoints',
    },
    { name: 'the openai SDK (models list)', argv: ['models', 'list'], path: '/inference/v1/models' },
    { name: 'the openai SDK (chat, piped)', argv: ['chat', '-m', MODEL, 'hi'], path: INFERENCE_CHAT },
    {
      name: 'the openai SDK (chat --json)',
      argv: ['chat', '--json', '-m', MODEL, 'hi'],
      path: INFERENCE_CHAT,
    },
  ];
  for (const c of cases) {
    it(`is a timeout, named as one, never "the connection was closed": ${c.name}`, {
      timeout: BOUND * 2,
    }, async () => {
      await emu.fault({ path: c.path, stall_body_ms: 600_000, times: 10 });
      const r = await timed(() => run(['--timeout', '1', '--max-retries', '1', ...c.argv], { stdin: '' }));
      expect(r.code, r.stderr).toBe(1);
      expect(r.stderr).toMatch(/timed out after 1s/);
      expect(r.stderr).toMatch(/raise --timeout to wait longer/);
      expect(r.stderr).not.toMatch(/connection was closed|ECONNRESET|aborted/);
      expect(r.ms).toBeLessThan(BOUND);
    });
  }
});
