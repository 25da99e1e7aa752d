// aip doctor on a host that cannot be reached (issue 28): one attempt per request, no retry chains, a
// table all the same, and a clock row that says why the clock could not be read. The key is checked
// with a request the published contract defines, judged by its security scheme (src/auth/verify.ts): never with a 404
// the contract does not define.

import { describe, expect, it } from 'vitest';
import { useEmulator } from '../helpers/emulator.js';
import { closedPort } from '../helpers/ports.js';

const { emu, env, run } = useEmulator();

type Row = { check: string; status: string; detail: string };
const rowsOf = (stdout: string) => JSON.parse(stdout) as Row[];
const row = (rows: Row[], check: string) => rows.find((r) => r.check === check);

const NIL = '00000000-0000-0000-0000-000000000000';

describe('aip doctor on an unreachable host', () => {
  it('sends each request once, retries nothing, and still gives its table', async () => {
    // Every interface answers by closing the connection: each request would be retried (a GET).
    await emu.fault({ path: '/**', drop: true, times: 1000 });
    const r = await run(['doctor', '--json']);
    expect(r.code, r.stderr).toBe(1);
    expect(r.sleeps).toEqual([]);
    expect(r.stderr).not.toMatch(/retrying/);
    const perPath: Record<string, number> = {};
    for (const q of await emu.requests()) {
      const key = `${q.method} ${q.path}`;
      perPath[key] = (perPath[key] ?? 0) + 1;
    }
    // One request each; the model list twice: the key's check and the interface's.
    expect(perPath).toEqual({
      'GET /training/v1/health': 1,
      [`GET /training/v1/preview/models/${NIL}/checkpoints`]: 1,
      'GET /inference/v1/models': 2,
      'GET /trace/agents/otel/v1/traces': 1,
    });
    const rows = rowsOf(r.stdout);
    for (const check of ['training', 'inference', 'trace']) expect(row(rows, check)?.status).toBe('fail');
  });

  it('with --max-retries given, still one attempt each', async () => {
    await emu.fault({ path: '/**', status: 503, times: 1000 });
    const r = await run(['--max-retries', '5', 'doctor', '--json']);
    expect(r.code, r.stderr).toBe(1);
    expect(r.sleeps).toEqual([]);
    expect(await emu.requests({ path: '/training/v1/health' })).toHaveLength(1);
  });

  it('a refused connection: no retries, and the clock row says why it was not checked', async () => {
    const port = await closedPort();
    const r = await run(['doctor', '--json'], {
      env: {
        AIP_BASE_URL: `http://127.0.0.1:${port}/v1`,
        AIP_INFERENCE_URL: `http://127.0.0.1:${port}/v1`,
        AIP_TRACE_URL: `http://127.0.0.1:${port}`,
      },
    });
    expect(r.code, r.stderr).toBe(1);
    expect(r.sleeps).toEqual([]);
    const rows = rowsOf(r.stdout);
    expect(row(rows, 'clock')).toEqual({
      check: 'clock',
      status: 'warn',
      detail: expect.stringMatching(/^not checked: the training API's health endpoint did not answer/),
    });
    expect(row(rows, 'training')?.detail).toMatch(/could not connect \(ECONNREFUSED\)/);
    expect(row(rows, 'training')?.detail).not.toMatch(/after \d+ attempts/);
  });

  it('a plain-http training URL (not asked): the clock row is there, saying so', async () => {
    const r = await run(['doctor', '--json'], { env: { AIP_BASE_URL: 'http://platform.example/v1' } });
    expect(r.code).toBe(1);
    expect(row(rowsOf(r.stdout), 'clock')).toMatchObject({ status: 'warn', detail: /^not checked/ });
  });
});

describe('the key, checked by answers the contract documents', () => {
  it('asks the Training API a valid request that creates nothing: what follows the key scheme is accepted', async () => {
    const r = await run(['doctor', '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(row(rowsOf(r.stdout), 'training')?.detail).toMatch(/key accepted$/);
    const probes = await emu.requests({ path: `/training/v1/preview/models/${NIL}/checkpoints` });
    // The emulator has no such model: 404, after the key was let through.
    expect(probes.map((q) => [q.method, q.query, q.status])).toEqual([['GET', { limit: '1' }, 404]]);
    expect(await emu.requests({ path: `/training/v1/preview/training-jobs/${NIL}` })).toEqual([]);
  });

  it.each([200, 422])('takes the documented %i for accepted too', async (status) => {
    await emu.fault({
      path: `/training/v1/preview/models/${NIL}/checkpoints`,
      status,
      body: status === 200 ? { data: [], has_more: false } : { detail: [] },
    });
    const r = await run(['doctor', '--json']);
    expect(row(rowsOf(r.stdout), 'training')?.detail).toMatch(/key accepted$/);
  });

  it('takes a 5xx for no verdict: the key is not called accepted', async () => {
    await emu.fault({
      path: `/training/v1/preview/models/${NIL}/checkpoints`,
      status: 502,
      body: { detail: 'Bad Gateway' },
    });
    const r = await run(['doctor', '--json']);
    expect(r.code).toBe(1);
    const training = row(rowsOf(r.stdout), 'training');
    expect(training?.status).toBe('fail');
    expect(training?.detail).toMatch(/key error: .*502.*the key could not be checked/);
    expect(training?.detail).not.toMatch(/accepted/);
  });

  it('a key refused (401) is said to be rejected, on both APIs', async () => {
    const r = await run(['doctor', '--json'], { env: { AIP_API_KEY: 'not-the-emulators-key-0000' } });
    expect(r.code).toBe(1);
    const rows = rowsOf(r.stdout);
    expect(row(rows, 'training')?.detail).toMatch(/key rejected: .*HTTP 401/);
    expect(row(rows, 'inference')?.detail).toMatch(/key rejected: .*HTTP 401/);
    expect(env.AIP_API_KEY).toBe(emu.key);
  });
});
