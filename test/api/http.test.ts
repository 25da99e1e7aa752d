// The API layer against the emulator over real HTTP: retries, Retry-After, timeouts, typed errors,
// and the rule that a POST is never sent twice once it may have reached the server.

import { describe, expect, it } from 'vitest';
import { HttpClient, type HttpClientOptions } from '../../src/api/http.js';
import { guardKeys, nodeTransport } from '../../src/api/transport.js';
import { joinUrl, p, segment } from '../../src/api/url.js';
import { ApiError, exitCodeFor, NetworkError, UsageError } from '../../src/errors/errors.js';
import { assertKeyMayBeSentTo, isLoopbackHost } from '../../src/output/secrets.js';
import { useEmulator } from '../helpers/emulator.js';
import { patience } from '../helpers/patience.js';
import { closedPort } from '../helpers/ports.js';

const { emu } = useEmulator();

function client(overrides: Partial<HttpClientOptions> = {}) {
  const sleeps: number[] = [];
  const notices: string[] = [];
  const http = new HttpClient({
    service: 'training API',
    baseUrl: emu.urls.base,
    apiKey: emu.key,
    transport: guardKeys(nodeTransport),
    // Only the tests of timeouts set one that matters; elsewhere it must not cut short an answer that a
    // busy machine is slow to give (test/helpers/patience.ts).
    timeoutMs: patience(30_000),
    maxRetries: 3,
    sleep: async (ms) => {
      sleeps.push(ms);
    },
    random: () => 0,
    userAgent: 'aip-test',
    onRetry: (n) => notices.push(n),
    ...overrides,
  });
  return { http, sleeps, notices };
}

async function rejection(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected the request to fail');
}

describe('where a key may go', () => {
  it('is https anywhere, or plain http to loopback addresses only', () => {
    for (const ok of [
      'https://api.example.com/v1',
      'http://127.0.0.1:4010/x',
      'http://127.8.9.10/',
      'http://localhost:1/',
      'http://[::1]:4010/',
    ]) {
      expect(() => assertKeyMayBeSentTo(ok)).not.toThrow();
    }
    for (const bad of [
      'http://api.example.com/v1',
      'http://api.localhost/v1',
      'http://10.0.0.1/',
      'http://0.0.0.0/',
      'http://[::2]/',
      'ftp://127.0.0.1/',
    ]) {
      expect(() => assertKeyMayBeSentTo(bad)).toThrow(UsageError);
    }
    expect(isLoopbackHost('LOCALHOST')).toBe(true);
  });
});

describe('URL joining', () => {
  it('appends paths to a base that ends in /v1, keeping the base path', () => {
    expect(joinUrl('https://api.example.com/v1', '/preview/models')).toBe(
      'https://api.example.com/v1/preview/models',
    );
    expect(joinUrl('https://api.example.com/api/training/v1/', 'health')).toBe(
      'https://api.example.com/api/training/v1/health',
    );
    expect(joinUrl('http://h/v1', '/x', { after: 'a b', limit: 5, order: undefined })).toBe(
      'http://h/v1/x?after=a+b&limit=5',
    );
  });

  it('encodes path values so that a name can never change the endpoint', () => {
    expect(p`/preview/models/${'a/../b'}/checkpoints`).toBe('/preview/models/a%2F..%2Fb/checkpoints');
    expect(p`/preview/models/${'%2F x'}`).toBe('/preview/models/%252F%20x');
    for (const bad of ['..', '.', '']) expect(() => segment(bad)).toThrow(UsageError);
  });
});

describe('retries', () => {
  it('retries a GET on 503 with backoff and then succeeds', async () => {
    await emu.fault({ path: '/training/v1/health', status: 503, times: 2 });
    const { http, sleeps, notices } = client();
    const res = await http.request({ method: 'GET', path: '/health', auth: false });
    expect(res.status).toBe(200);
    expect(res.data).toEqual({ status: 'ok' });
    expect(sleeps).toEqual([500, 1000]);
    expect(notices[0]).toBe('GET /training/v1/health: HTTP 503; retrying in 0.5s (retry 1 of 3)');
    expect((await emu.requests({ path: '/training/v1/health' })).map((r) => r.status)).toEqual([
      503, 503, 200,
    ]);
  });

  it('honours Retry-After on 429 (seconds, milliseconds, HTTP date)', async () => {
    await emu.fault({ path: '/training/v1/health', status: 429, retry_after: 7 });
    const a = client();
    await a.http.request({ method: 'GET', path: '/health', auth: false });
    expect(a.sleeps).toEqual([7000]);

    await emu.fault({
      path: '/training/v1/health',
      status: 429,
      retry_after: new Date(Date.now() + 30_000).toUTCString(),
    });
    const b = client();
    await b.http.request({ method: 'GET', path: '/health', auth: false });
    expect(b.sleeps).toHaveLength(1);
    expect(b.sleeps[0]).toBeGreaterThan(25_000);
    expect(b.sleeps[0]).toBeLessThanOrEqual(30_000);
  });

  it('gives up after the retry budget with exit code 6 for 429 and 1 for 5xx', async () => {
    await emu.fault({ path: '/training/v1/health', status: 429, times: 10, retry_after: 1 });
    const { http, sleeps } = client({ maxRetries: 2 });
    const error = await rejection(http.request({ method: 'GET', path: '/health', auth: false }));
    expect(error).toBeInstanceOf(ApiError);
    expect(exitCodeFor(error)).toBe(6);
    expect(error.message).toMatch(
      /^Concurrency limit reached for requests \(HTTP 429 from GET \/training\/v1\/health, request id req_\w+\); gave up after 3 attempts$/,
    );
    expect(sleeps).toEqual([1000, 1000]);

    await emu.reset();
    await emu.fault({ path: '/training/v1/health', status: 502, times: 10 });
    const five = await rejection(client({ maxRetries: 1 }).http.request({ method: 'GET', path: '/health' }));
    expect(exitCodeFor(five)).toBe(1);
    expect((await emu.requests({ path: '/training/v1/health' })).length).toBe(2);
  });

  it('does not wait out a Retry-After longer than a minute', async () => {
    await emu.fault({ path: '/training/v1/health', status: 503, retry_after: 3600 });
    const { http, sleeps } = client();
    const error = await rejection(http.request({ method: 'GET', path: '/health', auth: false }));
    expect(error.message).toMatch(/; the server asks to retry after 3600s$/);
    expect(sleeps).toEqual([]);
  });

  it('never retries a POST that may have reached the server', async () => {
    for (const fault of [{ status: 503 }, { status: 429, retry_after: 0 }, { drop: true }, { status: 500 }]) {
      await emu.reset();
      await emu.fault({ path: '/training/v1/preview/models', ...fault, times: 5 });
      const { http, sleeps } = client();
      const error = await rejection(
        http.request({ method: 'POST', path: '/preview/models', body: { name: 'm' } }),
      );
      expect(error.message).toMatch(/not retried: the request may have (been processed|reached the server)/);
      expect(sleeps).toEqual([]);
      expect(await emu.requests({ method: 'POST' })).toHaveLength(1);
    }
  });

  it('does retry a POST whose connection was refused (it never left this machine)', async () => {
    const port = await closedPort();
    const { http, sleeps } = client({ baseUrl: `http://127.0.0.1:${port}/v1`, maxRetries: 2 });
    const error = await rejection(http.request({ method: 'POST', path: '/preview/models', body: {} }));
    expect(error).toBeInstanceOf(NetworkError);
    expect(error.message).toBe(
      'training API unreachable: POST /v1/preview/models could not connect (ECONNREFUSED) (after 3 attempts)',
    );
    expect(sleeps).toHaveLength(2);
  });

  it('retries a GET whose connection was dropped, and one whose body was cut short', async () => {
    await emu.fault({ path: '/inference/v1/models', drop: true });
    await emu.fault({ path: '/inference/v1/models', cut_after_bytes: 20 });
    const { http, notices } = client({ baseUrl: emu.urls.inference });
    const res = await http.request<{ data: unknown[] }>({ method: 'GET', path: '/models' });
    expect(res.data.data).toHaveLength(7);
    expect(notices).toEqual([
      'GET /inference/v1/models: the connection was closed before the answer was complete; retrying in 0.5s (retry 1 of 3)',
      'GET /inference/v1/models: the connection was closed before the answer was complete; retrying in 1.0s (retry 2 of 3)',
    ]);
  });
});

describe('timeouts', () => {
  it('times out a stalled request, retries it, and reports the timeout', async () => {
    await emu.fault({ path: '/training/v1/health', delay_ms: 2000, times: 2 });
    const { http } = client({ timeoutMs: 150, maxRetries: 1 });
    const error = await rejection(http.request({ method: 'GET', path: '/health', auth: false }));
    expect(error).toBeInstanceOf(NetworkError);
    expect(error.message).toBe(
      'training API unreachable: GET /training/v1/health timed out after 0.15s (after 2 attempts)',
    );
    expect(exitCodeFor(error)).toBe(1);
  });

  it('lets a stalled request through when the stall is shorter than the timeout', async () => {
    await emu.fault({ path: '/training/v1/health', delay_ms: 100 });
    // Far longer than the stall, so that a busy machine is no failure: what is checked is that a stall
    // alone is not taken for a timeout.
    const { http, sleeps } = client({ timeoutMs: patience(30_000) });
    expect((await http.request({ method: 'GET', path: '/health', auth: false })).status).toBe(200);
    expect(sleeps).toEqual([]);
  });
});

describe('errors', () => {
  it('reads FastAPI 422 details as loc: msg lines (exit 2)', async () => {
    await emu.fault({
      path: '/training/v1/preview/models',
      status: 422,
      body: {
        detail: [
          { type: 'missing', loc: ['body', 'name'], msg: 'Field required' },
          {
            type: 'int_parsing',
            loc: ['body', 'trajectory_groups', 0, 'trajectories', 2, 'reward'],
            msg: 'Input should be a valid number',
          },
          {
            type: 'less_than_equal',
            loc: ['query', 'limit'],
            msg: 'Input should be less than or equal to 100',
          },
        ],
      },
    });
    const error = (await rejection(
      client().http.request({ method: 'POST', path: '/preview/models', body: {} }),
    )) as ApiError;
    expect(exitCodeFor(error)).toBe(2);
    expect(error.message).toMatch(
      /^the training API rejected the request \(3 validation errors\) \(HTTP 422 from POST/,
    );
    expect(error.details).toEqual([
      'name: Field required',
      'trajectory_groups[0].trajectories[2].reward: Input should be a valid number',
      'query.limit: Input should be less than or equal to 100',
    ]);
  });

  it('reads the OpenAI error envelope and keeps the request id', async () => {
    const { http } = client({ baseUrl: emu.urls.inference, apiKey: 'wrong-key' });
    const error = (await rejection(http.request({ method: 'GET', path: '/models' }))) as ApiError;
    expect(error.status).toBe(401);
    expect(exitCodeFor(error)).toBe(4);
    expect(error.requestId).toMatch(/^req_/);
    expect(error.message).toBe(
      `Authentication failed (HTTP 401 from GET /inference/v1/models, request id ${error.requestId})`,
    );
    expect(error.hint).toBe("run 'aip auth login' or set AIP_API_KEY");
  });

  it('reduces an HTML error page to its status line', async () => {
    await emu.fault({
      path: '/training/v1/preview/models',
      status: 404,
      raw_body: '<html><body><h1>404</h1></body></html>',
    });
    const error = (await rejection(
      client().http.request({ method: 'DELETE', path: '/preview/models' }),
    )) as ApiError;
    expect(exitCodeFor(error)).toBe(3);
    expect(error.message).toMatch(
      /^Not Found \(HTTP 404 from DELETE \/training\/v1\/preview\/models, request id req_\w+\)$/,
    );
  });

  it('reports malformed JSON in a success answer', async () => {
    await emu.fault({
      path: '/training/v1/health',
      status: 200,
      raw_body: '{"status": ',
      content_type: 'application/json',
    });
    const error = await rejection(client().http.request({ method: 'GET', path: '/health' }));
    expect(error.message).toMatch(
      /^malformed JSON in the answer \(HTTP 200 from GET \/training\/v1\/health, request id/,
    );
    expect(exitCodeFor(error)).toBe(1);
  });

  it('refuses to send a key over plain http to a host that is not loopback, before connecting', async () => {
    let called = false;
    const { http } = client({
      baseUrl: 'http://api.example.com/v1',
      transport: guardKeys(async () => {
        called = true;
        return { status: 200, statusText: 'OK', headers: {}, body: Buffer.from('{}'), elapsedMs: 1 };
      }),
    });
    const error = await rejection(http.request({ method: 'GET', path: '/health' }));
    expect(error).toBeInstanceOf(UsageError);
    expect(error.message).toBe(
      'refusing to send the API key over plain http to api.example.com: use an https:// URL (plain http is allowed only for loopback addresses such as the emulator)',
    );
    expect(called).toBe(false);
  });

  it('sends the bearer key and a user agent', async () => {
    await client().http.request({ method: 'GET', path: '/preview/training-jobs/x', accept: () => true });
    const [record] = await emu.requests({ path: '/training/v1/preview/training-jobs/x' });
    expect(record?.headers.authorization).toBe('Bearer ****cdef');
    expect(record?.headers['user-agent']).toBe('aip-test');
    expect(record?.status).toBe(404);
  });
});

describe('connections', () => {
  it('a create gets a connection of its own; other requests reuse a kept-alive one', async () => {
    // A server that counts connections: a kept-alive connection the server closes just as it is
    // reused fails its request with ECONNRESET, which must never happen to a create (it would read
    // as "it may have reached the server" when it did not).
    const { createServer } = await import('node:http');
    let connections = 0;
    const server = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        res.setHeader('content-type', 'application/json');
        res.end('{"ok": true}');
      });
    });
    server.on('connection', () => connections++);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as import('node:net').AddressInfo;
    try {
      const { http } = client({ baseUrl: `http://127.0.0.1:${port}`, apiKey: undefined });
      await http.request({ method: 'GET', path: '/a' });
      await http.request({ method: 'GET', path: '/a' });
      const afterReads = connections;
      await http.request({ method: 'POST', path: '/create', body: {} });
      await http.request({ method: 'POST', path: '/create', body: {} });
      expect(connections - afterReads).toBe(2);
      // A POST that may be sent twice is not a create: it reuses a connection like a GET.
      const beforeIdempotent = connections;
      await http.request({ method: 'POST', path: '/batch', body: {}, idempotent: true });
      await http.request({ method: 'POST', path: '/batch', body: {}, idempotent: true });
      expect(connections - beforeIdempotent).toBeLessThanOrEqual(1);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
