// Bounds on what a server controls (src/api/limits.ts), each against a small hostile server of its
// own: a body that never ends, a header of 1 MB, a server that accepts and says nothing, event streams
// that open and then stall or send one endless line, pages that never end, a follow that never ends.
// Each ends with exit 1 (or 7 for a --timeout wait) and one line on stderr naming the limit and how
// to raise it; where memory is the point, the server counts the bytes it managed to write before aip
// hung up. A server never allocates more than one chunk: bodies are poured, not built. Each also stops
// at a ceiling, so that a client without the bound fails the test instead of exhausting memory.

import { EventEmitter } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { main } from '../../src/main.js';
import { runCli, tempConfigDir } from '../helpers/cli.js';
import { fakeIO } from '../helpers/io.js';
import { patience } from '../helpers/patience.js';
import { waitFor } from '../helpers/wait.js';

const MiB = 1024 * 1024;
const UUID = '3f0c9a1e-7b2d-4c5e-9f10-1a2b3c4d5e6f';
/** What a socket may hold between the server's writes and aip's reads (kernel buffers, a chunk). */
const SLACK = 16 * MiB;

type Handler = (req: IncomingMessage, res: ServerResponse, n: number) => void | Promise<void>;

interface Hostile {
  base: string;
  requests: string[];
  /** Body bytes written per response, counted when its connection closed (or the ceiling was hit). */
  written: number[];
  env(extra?: Record<string, string>): Record<string, string>;
}

const servers: Array<ReturnType<typeof createServer>> = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

async function hostile(handle: Handler): Promise<Hostile> {
  const requests: string[] = [];
  const written: number[] = [];
  const server = createServer((req, res) => {
    res.on('error', () => undefined);
    requests.push(`${req.method} ${req.url}`);
    req.resume();
    void handle(req, res, requests.length);
  });
  server.on('clientError', (_error, socket) => socket.destroy());
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    base,
    requests,
    written,
    env: (extra = {}) => ({
      AIP_API_KEY: 'bounds-key-0123456789',
      AIP_BASE_URL: `${base}/v1`,
      AIP_INFERENCE_URL: `${base}/v1`,
      AIP_TRACE_URL: base,
      AIP_PROJECT: 'team/project',
      ...extra,
    }),
  };
}

/** Writes `head`, then `chunk` again and again until the client hangs up or `ceiling` is reached. */ function pour(
  h: Hostile,
  res: ServerResponse,
  chunk: string,
  ceiling: number,
  head = '',
): void {
  const bytes = Buffer.from(chunk);
  let sent = 0;
  let counted = false;
  const count = () => {
    if (!counted) h.written.push(sent);
    counted = true;
  };
  res.on('close', count);
  if (head) {
    res.write(head);
    sent += Buffer.byteLength(head);
  }
  const more = () => {
    while (!res.destroyed && sent < ceiling) {
      sent += bytes.length;
      if (!res.write(bytes)) return void res.once('drain', more);
    }
    if (!res.destroyed) {
      count();
      res.end();
    }
  };
  more();
}

const JSON_HEAD = { 'content-type': 'application/json' };
const SSE_HEAD = { 'content-type': 'text/event-stream' };
/** An item of a page, repeated: a page of checkpoints that never ends. */
const ITEM = `{"id":"${UUID}","step":1,"metrics":{"reward":0.5}},`.repeat(200);

function page(data: Array<{ id: string }>, hasMore: boolean, lastId = data.at(-1)?.id) {
  return JSON.stringify({ object: 'list', data, first_id: data[0]?.id, last_id: lastId, has_more: hasMore });
}

/** What the server wrote of its one answer before aip hung up. */
async function wrote(h: Hostile): Promise<number> {
  await waitFor(() => h.written.length > 0);
  return h.written[0]!;
}

/** A bounded run: the command, its env, and a one-line error. */
async function fails(argv: string[], env: Record<string, string>, code = 1) {
  const r = await runCli(argv, { env });
  expect(r.stderr.split('\n').filter(Boolean), r.stderr.slice(0, 500)).toHaveLength(1);
  expect(r.stderr).not.toMatch(/unexpected failure/);
  expect(r.code).toBe(code);
  return r;
}

describe('the size of an answer', () => {
  it('a page that never ends: aip hangs up after 32 MiB, once, and names the limit', {
    timeout: patience(90_000),
  }, async () => {
    const h = await hostile((_req, res) => {
      res.writeHead(200, JSON_HEAD);
      pour(h, res, ITEM, 256 * MiB, '{"object":"list","data":[');
    });
    const r = await fails(['checkpoints', 'list', UUID], h.env());
    expect(r.stderr).toBe(
      `error: training API: the answer to GET /v1/preview/models/${UUID}/checkpoints is larger than 32 MiB (the limit for a page of a list); raise it with AIP_MAX_RESPONSE_BYTES=64MiB\n`,
    );
    expect(h.requests).toHaveLength(1);
    expect(await wrote(h)).toBeLessThan(32 * MiB + SLACK);
  });

  it('AIP_MAX_RESPONSE_BYTES lowers and raises it; a bad value is a usage error before anything is sent', async () => {
    const items = Array.from({ length: 100 }, (_, i) => ({
      id: `c${i}`,
      step: i,
      metrics: { x: 'y'.repeat(20_000) },
    }));
    const h = await hostile((_req, res) => {
      res.writeHead(200, JSON_HEAD);
      res.end(page(items, false));
    });
    const low = await fails(['checkpoints', 'list', UUID], h.env({ AIP_MAX_RESPONSE_BYTES: '1M' }));
    expect(low.stderr).toMatch(
      /is larger than 1 MiB \(the limit for a page of a list\); raise it with AIP_MAX_RESPONSE_BYTES=2MiB\n$/,
    );
    const high = await runCli(['checkpoints', 'list', UUID, '--json'], {
      env: h.env({ AIP_MAX_RESPONSE_BYTES: '4MiB' }),
    });
    expect(high.code).toBe(0);
    expect(JSON.parse(high.stdout)).toHaveLength(100);
    const sent = h.requests.length;
    const bad = await fails(['checkpoints', 'list', UUID], h.env({ AIP_MAX_RESPONSE_BYTES: 'lots' }), 2);
    expect(bad.stderr).toMatch(/^error: AIP_MAX_RESPONSE_BYTES: expected a size/);
    expect(h.requests).toHaveLength(sent);
  });

  it('a model list that never ends (the openai SDK): one request, cut at 16 MiB', {
    timeout: patience(90_000),
  }, async () => {
    const h = await hostile((_req, res) => {
      res.writeHead(200, JSON_HEAD);
      pour(
        h,
        res,
        '{"id":"m","object":"model","owned_by":"x"},'.repeat(200),
        128 * MiB,
        '{"object":"list","data":[',
      );
    });
    const r = await fails(['models', 'list'], h.env());
    expect(r.stderr).toBe(
      'error: inference API: the answer to GET /v1/models is larger than 16 MiB (the limit for a model list); raise it with AIP_MAX_RESPONSE_BYTES=32MiB\n',
    );
    expect(h.requests).toHaveLength(1);
    expect(await wrote(h)).toBeLessThan(16 * MiB + SLACK);
  });

  it('a whole chat completion that never ends', async () => {
    const h = await hostile((_req, res) => {
      res.writeHead(200, JSON_HEAD);
      pour(h, res, 'x'.repeat(4096), 64 * MiB, '{"choices":[{"message":{"content":"');
    });
    const r = await fails(['chat', '-m', 'm', '--no-stream', 'hi'], h.env({ AIP_MAX_RESPONSE_BYTES: '1M' }));
    expect(r.stderr).toBe(
      'error: inference API: the answer to POST /v1/chat/completions is larger than 1 MiB (the limit for a chat completion); raise it with AIP_MAX_RESPONSE_BYTES=2MiB\n',
    );
    expect(h.requests).toHaveLength(1);
  });

  it('a trace-ingest answer that never ends: cut at 1 MiB', async () => {
    const h = await hostile((_req, res) => {
      res.writeHead(200, JSON_HEAD);
      pour(h, res, ' '.repeat(4096), 64 * MiB, '{"accepted_spans":1');
    });
    const r = await fails(['traces', 'span', '--name', 'x'], h.env());
    expect(r.stderr).toBe(
      'error: trace ingest: the answer to POST /agents/otel/v1/traces is larger than 1 MiB (the limit for a trace-ingest answer); raise it with AIP_MAX_RESPONSE_BYTES=2MiB\n',
    );
    expect(h.requests).toHaveLength(1);
    expect(await wrote(h)).toBeLessThan(1 * MiB + SLACK);
  });

  it('an error body that never ends is cut at 1 MiB: the status is the answer', async () => {
    const h = await hostile((_req, res) => {
      res.writeHead(404, { 'content-type': 'text/plain' });
      pour(h, res, 'no such model '.repeat(300), 64 * MiB);
    });
    const r = await fails(['--max-retries', '0', 'checkpoints', 'list', UUID], h.env(), 3);
    expect(r.stderr).toMatch(
      new RegExp(
        `^error: no such model .*… \\(HTTP 404 from GET /v1/preview/models/${UUID}/checkpoints\\); its body was cut at 1 MiB\\n$`,
      ),
    );
    expect(await wrote(h)).toBeLessThan(1 * MiB + SLACK);
    // The same through the openai SDK.
    const sdk = await fails(['--max-retries', '0', 'models', 'list'], h.env(), 3);
    expect(sdk.stderr).toMatch(/^error: no such model .*… \(HTTP 404 from GET \/v1\/models\)\n$/);
    await waitFor(() => h.written.length > 1);
    expect(h.written[1]).toBeLessThan(1 * MiB + SLACK);
  });
});

describe('headers', () => {
  const bigHeader: Handler = (_req, res) => {
    res.writeHead(200, { ...JSON_HEAD, 'x-padding': 'p'.repeat(MiB) });
    res.end('{"object":"list","data":[],"has_more":false}');
  };

  it('1 MB of headers: not retried, and the limit is named (aip client and openai SDK)', async () => {
    const h = await hostile(bigHeader);
    const r = await fails(['checkpoints', 'list', UUID], h.env());
    expect(r.stderr).toBe(
      `error: training API: the headers of the answer to GET /v1/preview/models/${UUID}/checkpoints are larger than 32 KiB (the limit for headers); raise it with AIP_MAX_HEADER_BYTES=64KiB\n`,
    );
    expect(h.requests).toHaveLength(1);
    const sdk = await fails(['models', 'list'], h.env());
    expect(sdk.stderr).toBe(
      'error: inference API: the headers of the answer to GET /v1/models are larger than 32 KiB (the limit for headers); raise it with AIP_MAX_HEADER_BYTES=64KiB\n',
    );
    expect(h.requests).toHaveLength(2);
  });

  it('AIP_MAX_HEADER_BYTES raises it', async () => {
    const h = await hostile(bigHeader);
    const r = await runCli(['checkpoints', 'list', UUID], { env: h.env({ AIP_MAX_HEADER_BYTES: '2M' }) });
    expect(r.code).toBe(0);
  });
});

describe('silence', () => {
  const silent: Handler = () => undefined;

  it('a server that accepts and never answers: the per-request --timeout, named', async () => {
    const h = await hostile(silent);
    const r = await fails(['--timeout', '0.5', '--max-retries', '0', 'checkpoints', 'list', UUID], h.env());
    expect(r.stderr).toBe(
      `error: training API unreachable: GET /v1/preview/models/${UUID}/checkpoints timed out after 0.5s; raise --timeout to wait longer\n`,
    );
    const sdk = await fails(['--timeout', '0.5', '--max-retries', '0', 'models', 'list'], h.env());
    expect(sdk.stderr).toBe(
      'error: inference API unreachable: GET /v1/models timed out after 0.5s; raise --timeout to wait longer\n',
    );
  });

  it('a chat stream that never sends headers, and one that sends headers and then nothing', async () => {
    const h = await hostile(silent);
    const argv = ['--timeout', '0.5', '--max-retries', '0', 'chat', '-m', 'm', '--stream', 'hi'];
    const none = await fails(argv, h.env());
    expect(none.stderr).toBe(
      'error: inference API unreachable: POST /v1/chat/completions timed out after 0.5s; raise --timeout to wait longer\n',
    );
    const mute = await hostile((_req, res) => {
      res.writeHead(200, SSE_HEAD);
      res.flushHeaders();
    });
    const opened = await fails(argv, mute.env());
    expect(opened.stderr).toBe(
      'error: inference API: the stream stalled: nothing for 0.5s after 0 characters (POST /v1/chat/completions); raise --timeout to wait longer\n',
    );
  });
});

describe('event streams', () => {
  it('one line that never ends: cut at 16 MiB', { timeout: patience(90_000) }, async () => {
    const h = await hostile((_req, res) => {
      res.writeHead(200, SSE_HEAD);
      pour(h, res, 'x'.repeat(4096), 128 * MiB, 'data: {"choices":[{"delta":{"content":"');
    });
    const r = await fails(['chat', '-m', 'm', '--stream', 'hi'], h.env());
    expect(r.stderr).toBe(
      'error: inference API: a line of the event stream answering POST /v1/chat/completions is longer than 16 MiB (the limit for one line of an event stream); raise it with AIP_MAX_RESPONSE_BYTES=32MiB\n',
    );
    expect(await wrote(h)).toBeLessThan(16 * MiB + SLACK);
  });

  it('chunks that never end: the stream as a whole is a chat completion', async () => {
    const h = await hostile((_req, res) => {
      res.writeHead(200, SSE_HEAD);
      pour(h, res, 'data: {"choices":[{"index":0,"delta":{"content":"ab"}}]}\n\n'.repeat(50), 16 * MiB);
    });
    const r = await fails(['chat', '-m', 'm', '--stream', 'hi'], h.env({ AIP_MAX_RESPONSE_BYTES: '1M' }));
    expect(r.stderr).toBe(
      'error: inference API: the event stream answering POST /v1/chat/completions is larger than 1 MiB (the limit for a chat completion); raise it with AIP_MAX_RESPONSE_BYTES=2MiB\n',
    );
    expect(await wrote(h)).toBeLessThan(1 * MiB + SLACK);
  });
});

describe('pages', () => {
  /** Always one more page, each with a new cursor; after `stop` pages it gives up (the safety). */
  const endless =
    (stop: number): Handler =>
    (_req, res, n) => {
      res.writeHead(200, JSON_HEAD);
      res.end(page([{ id: `e${n}` }], n < stop));
    };

  it('--all that never ends stops at the page limit (AIP_MAX_PAGES), with the last cursor', async () => {
    const h = await hostile(endless(200));
    const r = await fails(['events', UUID, '--all', '--jsonl'], h.env({ AIP_MAX_PAGES: '50' }));
    expect(r.stderr).toBe(
      'error: the server still said there are more items after 50 pages (the limit of --all; last cursor "e50"); raise it with AIP_MAX_PAGES=100\n',
    );
    expect(h.requests).toHaveLength(50);
  });

  it('a cursor given again is named; a missing one is said to be missing', async () => {
    const again = await hostile((_req, res, n) => {
      res.writeHead(200, JSON_HEAD);
      // a, b, a: a loop, not only the same cursor twice in a row.
      res.end(page([{ id: ['a', 'b', 'a'][n - 1] ?? 'z' }], n < 6));
    });
    const r = await fails(['checkpoints', 'list', UUID, '--all'], again.env());
    expect(r.stderr).toBe(
      'error: the server said there are more items but repeated the cursor "a" of an earlier page, so paging would never end\n',
    );
    const none = await hostile((_req, res) => {
      res.writeHead(200, JSON_HEAD);
      res.end(JSON.stringify({ object: 'list', data: [], has_more: true }));
    });
    const missing = await fails(['checkpoints', 'list', UUID, '--all'], none.env());
    expect(missing.stderr).toBe(
      'error: the server said there are more items but gave no cursor to fetch them\n',
    );
  });
});

describe('--follow', () => {
  it('a server that repeats its page forever: the --timeout ends it (exit 7), and it is not hammered', async () => {
    const h = await hostile((req, res) => {
      res.writeHead(200, JSON_HEAD);
      if (!req.url?.includes('/events')) return void res.end(JSON.stringify({ id: UUID, status: 'running' }));
      res.end(page([{ id: 'e1', type: 'gradient_step', data: {} } as { id: string }], true));
    });
    const r = await runCli(['--timeout', '1', 'events', UUID, '--follow', '--jsonl', '--interval', '0.1'], {
      env: h.env(),
      sleepCap: 100,
    });
    expect(r.code).toBe(7);
    expect(r.stdout.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/the job had not ended after the --timeout of 1s; resume with: aip events/);
    expect(h.requests.length).toBeLessThan(30);
  });

  it('--json writes its array as events arrive, byte for byte what --all --json prints whole', async () => {
    let seenAtSecondPoll = '';
    const { io, stdout } = fakeIO({ env: { AIP_CONFIG_DIR: tempConfigDir() } });
    // Characters the output sanitiser would act on, which JSON output must escape exactly as io.json.
    const events = [
      { id: 'e1', type: 'training_started', data: { note: 'del\u007f bidi\u202e' } },
      { id: 'e2', type: 'training_ended', data: {} },
    ];
    const h = await hostile((req, res, n) => {
      res.writeHead(200, JSON_HEAD);
      if (new URL(req.url!, 'http://x').searchParams.get('limit') === '7')
        return void res.end(page(events, false));
      if (n === 1) return void res.end(page([events[0]!], false));
      seenAtSecondPoll = stdout.text;
      res.end(page([events[1]!], false));
    });
    const env = { ...h.env(), AIP_CONFIG_DIR: tempConfigDir() };
    const code = await main(['events', UUID, '--follow', '--json', '--interval', '0.01'], {
      env,
      io,
      signals: new EventEmitter(),
      sleep: async () => undefined,
    });
    expect(code).toBe(0);
    expect(seenAtSecondPoll).toContain('"e1"');
    const whole = await runCli(['events', UUID, '--all', '--json', '--limit', '7'], { env });
    expect(whole.code).toBe(0);
    expect(stdout.text).toBe(whole.stdout);
    expect(JSON.parse(stdout.text)).toEqual(events);
  });
});
