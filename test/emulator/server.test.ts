// The emulator core over real HTTP: the three prefixes, bearer auth, FastAPI-style 404/405, the model
// list's OpenAI shape, system-check switches, fault injection and the request record.

import { describe, expect, it } from 'vitest';
import { RequestLog } from '../../src/emulator/index.js';
import { useEmulator } from '../helpers/emulator.js';

const { emu } = useEmulator();

async function call(path: string, init: RequestInit & { key?: string | null } = {}) {
  const headers = new Headers(init.headers);
  if (init.key !== null) headers.set('authorization', `Bearer ${init.key ?? emu.key}`);
  const res = await fetch(`${emu.origin}${path}`, { ...init, headers });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : undefined };
}

describe('emulator routes', () => {
  it('serves health and system-check without a key', async () => {
    expect(await call('/training/v1/health', { key: null })).toMatchObject({
      status: 200,
      body: { status: 'ok' },
    });
    expect((await call('/training/v1/system-check', { key: null })).status).toBe(200);
  });

  it('lists inference models in the OpenAI shape', async () => {
    const { status, body } = await call('/inference/v1/models');
    expect(status).toBe(200);
    expect(body.object).toBe('list');
    expect(body.data.length).toBeGreaterThan(3);
    for (const model of body.data) {
      expect(model).toEqual({
        id: expect.any(String),
        object: 'model',
        created: expect.any(Number),
        owned_by: 'system',
        root: model.id,
      });
    }
  });

  it("answers 401 without a valid bearer key, in each API's error shape", async () => {
    const missing = await call('/inference/v1/models', { key: null });
    expect(missing.status).toBe(401);
    expect(missing.body).toEqual({
      error: { message: 'Not authenticated', type: 'authentication_error', code: 401 },
    });
    expect(missing.headers.get('www-authenticate')).toBe('Bearer');
    const wrong = await call('/training/v1/preview/models/x/checkpoints', { key: 'nope' });
    expect(wrong).toMatchObject({ status: 401, body: { detail: 'Authentication failed' } });
  });

  it('answers 404 and 405 as FastAPI does, with a request id on every answer', async () => {
    const notFound = await call('/training/v1/no-such-thing');
    expect(notFound).toMatchObject({ status: 404, body: { detail: 'Not Found' } });
    expect(notFound.headers.get('x-request-id')).toMatch(/^req_[0-9a-f]{12}$/);
    const wrongMethod = await call('/training/v1/health', { method: 'POST', key: null });
    expect(wrongMethod).toMatchObject({ status: 405, body: { detail: 'Method Not Allowed' } });
    expect(wrongMethod.headers.get('allow')).toBe('GET');
  });

  it('fails system-check with 503 for the components it is told to fail, until healed', async () => {
    const set = await emu.control('PUT', '/system-check', { failing: { database: 'connection refused' } });
    expect(set.status).toBe(200);
    const failing = await call('/training/v1/system-check', { key: null });
    expect(failing.status).toBe(503);
    expect(failing.body.database).toEqual({ success: false, duration_ms: 0.8, error: 'connection refused' });
    expect(failing.body.api).toBe(true);
    await emu.control('PUT', '/system-check', { failing: {} });
    expect((await call('/training/v1/system-check', { key: null })).status).toBe(200);
    const bad = await emu.control('PUT', '/system-check', { failing: { disk: 'full' } });
    expect(bad.status).toBe(422);
  });
});

describe('fault injection', () => {
  it("answers with the status, Retry-After and the platform's text, for the next N requests only", async () => {
    await emu.fault({ path: '/inference/v1/models', status: 429, retry_after: 3, times: 2 });
    for (let i = 0; i < 2; i++) {
      const r = await call('/inference/v1/models');
      expect(r.status).toBe(429);
      expect(r.headers.get('retry-after')).toBe('3');
      expect(r.body.error.message).toBe('Concurrency limit reached for requests');
    }
    expect((await call('/inference/v1/models')).status).toBe(200);
    const faults = (await emu.control('GET', '/faults')).body as {
      data: Array<{ remaining: number; applied: number }>;
    };
    expect(faults.data[0]).toMatchObject({ remaining: 0, applied: 2, kind: 'status' });
  });

  it('matches by method and by glob', async () => {
    await emu.fault({ method: 'DELETE', path: '/training/v1/preview/models/*', status: 500 });
    expect((await call('/training/v1/preview/models/abc/checkpoints', { method: 'GET' })).status).toBe(404);
    expect((await call('/training/v1/preview/models/abc', { method: 'DELETE' })).status).toBe(500);
    await emu.fault({ path: '/training/**', status: 502 });
    expect((await call('/training/v1/preview/models/abc/checkpoints')).status).toBe(502);
  });

  it('drops the connection, stalls, or cuts the answer short', async () => {
    await emu.fault({ path: '/training/v1/health', drop: true });
    await expect(fetch(`${emu.origin}/training/v1/health`)).rejects.toThrow('fetch failed');

    await emu.fault({ path: '/training/v1/health', delay_ms: 300 });
    const started = performance.now();
    expect((await fetch(`${emu.origin}/training/v1/health`)).status).toBe(200);
    expect(performance.now() - started).toBeGreaterThanOrEqual(290);

    await emu.fault({ path: '/inference/v1/models', cut_after_bytes: 50 });
    const res = await fetch(`${emu.origin}/inference/v1/models`, {
      headers: { authorization: `Bearer ${emu.key}` },
    });
    expect(res.status).toBe(200);
    await expect(res.text()).rejects.toThrow();
  });

  it('can serve an HTML error page', async () => {
    await emu.fault({ path: '/training/v1/health', status: 502, raw_body: '<html>Bad Gateway</html>' });
    const res = await fetch(`${emu.origin}/training/v1/health`);
    expect(res.status).toBe(502);
    expect(res.headers.get('content-type')).toBe('text/html');
    expect(await res.text()).toBe('<html>Bad Gateway</html>');
  });

  it('rejects malformed fault specs with 422', async () => {
    for (const spec of [
      {},
      { path: 'no-slash', status: 500 },
      { path: '/x' },
      { path: '/x', status: 99 },
      { path: '/x', status: 500, drop: true },
      { path: '/x', status: 500, times: 0 },
    ]) {
      const r = await emu.control('POST', '/faults', spec);
      expect(r.status).toBe(422);
      expect((r.body as { detail: unknown[] }).detail).toHaveLength(1);
    }
  });

  it('removes one fault by id, or all', async () => {
    const created = await emu.control('POST', '/faults', { path: '/training/v1/health', status: 500 });
    const { id } = created.body as { id: string };
    expect((await emu.control('DELETE', `/faults/${id}`)).status).toBe(200);
    expect((await call('/training/v1/health')).status).toBe(200);
    expect((await emu.control('DELETE', '/faults/fault-999')).status).toBe(404);
  });
});

describe('the request record', () => {
  it('records method, path, query, headers, body, status, fault, counted per route', async () => {
    await emu.fault({ path: '/training/v1/preview/models/*/checkpoints', status: 503 });
    await call('/training/v1/preview/models/m1/checkpoints?limit=5', {
      method: 'DELETE',
      body: '{"steps":[1,2]}',
      headers: { 'content-type': 'application/json' },
    });
    await call('/training/v1/health', { key: null });
    await call('/training/v1/health', { key: null });
    const [first, second] = await emu.requests();
    expect(second?.seq).toBe(first!.seq + 1);
    expect(first).toMatchObject({
      method: 'DELETE',
      path: '/training/v1/preview/models/m1/checkpoints',
      query: { limit: '5' },
      body: { steps: [1, 2] },
      status: 503,
      fault: 'status',
    });
    expect(first?.headers.authorization).toBe('Bearer ****cdef');
    expect(JSON.stringify(await emu.requests())).not.toContain(emu.key);
    expect(second).toMatchObject({
      method: 'GET',
      path: '/training/v1/health',
      status: 200,
      fault: null,
      route: 'GET /training/v1/health',
    });
    const counts = (await emu.control('GET', '/counts')).body;
    expect(counts).toEqual({
      'DELETE /training/v1/preview/models/:model_id/checkpoints': 1,
      'GET /training/v1/health': 2,
    });
  });

  it('does not record its own control routes, and is emptied by reset', async () => {
    await emu.control('GET', '/faults');
    expect(await emu.requests()).toEqual([]);
    await call('/training/v1/health');
    expect(await emu.requests()).toHaveLength(1);
    await emu.reset();
    expect(await emu.requests()).toEqual([]);
  });
});

describe('emulator internals', () => {
  it('keeps the request record within its count and byte bounds', () => {
    const log = new RequestLog(3);
    const record = (path: string) => ({
      request_id: 'r',
      time: '',
      method: 'GET',
      path,
      query: {},
      headers: {},
      body: null,
      route: `GET ${path}`,
      status: null,
      fault: null,
      duration_ms: null,
    });
    for (const path of ['/a', '/b', '/c', '/d']) log.add(record(path), 0);
    expect(log.list().map((r) => r.path)).toEqual(['/b', '/c', '/d']);
    expect(log.dropped).toBe(1);
    log.add(record('/big-1'), 40 * 1024 * 1024);
    log.add(record('/big-2'), 40 * 1024 * 1024);
    expect(log.list().map((r) => r.path)).toEqual(['/big-2']);
    expect(log.total).toBe(6);
  });

  it('answers 404, not 500, for a malformed escape in a path parameter', async () => {
    const r = await fetch(`${emu.origin}/_emulator/faults/%zz`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${emu.key}` },
    });
    expect(r.status).toBe(404);
  });
});
