import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { useEmulator } from '../helpers/emulator.js';
import { closedPort } from '../helpers/ports.js';

const { emu } = useEmulator();

describe('aip health', () => {
  it('--json prints one document with a check per interface, and sends no key', async () => {
    const r = await runCli(['health', '--json'], { env: emu.env });
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    const checks = JSON.parse(r.stdout);
    expect(checks).toEqual([
      expect.objectContaining({
        interface: 'training',
        url: `${emu.urls.base}/health`,
        ok: true,
        status: 'ok',
        http_status: 200,
        response: { status: 'ok' },
      }),
      expect.objectContaining({
        interface: 'inference',
        ok: true,
        status: 'reachable',
        http_status: 401,
        message: 'HTTP 401 (no key sent)',
      }),
      expect.objectContaining({
        interface: 'trace',
        url: `${emu.urls.trace}/agents/otel/v1/traces`,
        ok: true,
        status: 'reachable',
      }),
    ]);
    for (const c of checks) expect(c.latency_ms).toBeGreaterThan(0);
    const records = await emu.requests();
    expect(records).toHaveLength(3);
    for (const record of records) expect(record.headers.authorization).toBeUndefined();
  });

  it('prints an aligned table on a terminal and TSV rows when piped', async () => {
    const tty = await runCli(['health'], { env: { ...emu.env, NO_COLOR: '1' }, stdoutTTY: true });
    const lines = tty.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^INTERFACE {2}STATUS {5}LATENCY +URL +DETAIL$/);
    expect(lines[1]).toMatch(new RegExp(`^training {3}ok {9}[\\d.]+ ms +${emu.urls.base}/health$`));
    const piped = await runCli(['health'], { env: emu.env });
    const rows = piped.stdout
      .trimEnd()
      .split('\n')
      .map((l) => l.split('\t'));
    expect(rows.map((r) => r.slice(0, 2))).toEqual([
      ['training', 'ok'],
      ['inference', 'reachable'],
      ['trace', 'reachable'],
    ]);
    expect(Number(rows[0]![2])).toBeGreaterThan(0);
    expect(piped.stdout).not.toMatch(/\u001b\[/);
  });

  it('exits 1 and says which interface failed when the training API keeps failing', async () => {
    await emu.fault({ path: '/training/v1/health', status: 503, times: 10 });
    const r = await runCli(['--max-retries', '2', 'health', '--json'], { env: emu.env });
    expect(r.code).toBe(1);
    const [training] = JSON.parse(r.stdout);
    expect(training).toMatchObject({ interface: 'training', ok: false, status: 'error', http_status: 503 });
    expect(r.stderr.trim().split('\n')).toEqual([
      'warning: GET /training/v1/health: HTTP 503; retrying in 0.4s (retry 1 of 2)',
      'warning: GET /training/v1/health: HTTP 503; retrying in 0.9s (retry 2 of 2)',
      expect.stringMatching(
        /^error: health check failed \(training error\): The engine is currently overloaded.*\(HTTP 503 from GET \/training\/v1\/health, request id \w+\); gave up after 3 attempts$/,
      ),
    ]);
    expect(r.sleeps).toEqual([438, 875]);
    expect(await emu.requests({ path: '/training/v1/health' })).toHaveLength(3);
  });

  it('reports an interface that cannot be reached', async () => {
    const r = await runCli(['--max-retries', '0', 'health', '--json'], {
      env: { ...emu.env, AIP_TRACE_URL: `http://127.0.0.1:${await closedPort()}` },
    });
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stdout)[2]).toMatchObject({
      interface: 'trace',
      ok: false,
      status: 'unreachable',
      http_status: null,
    });
    expect(r.stderr).toBe(
      'error: health check failed (trace unreachable): trace ingest unreachable: GET /agents/otel/v1/traces could not connect (ECONNREFUSED)\n',
    );
  });

  it('exits with the code of the kind of failure: a 429 that outlasts the retries is 6', async () => {
    await emu.fault({ path: '/training/v1/health', status: 429, retry_after: '0', times: 10 });
    const r = await runCli(['--max-retries', '1', 'health'], { env: emu.env });
    expect(r.code).toBe(6);
    expect(r.stdout).toMatch(/^training\terror\t/);
    expect(r.stderr).toMatch(/\nerror: health check failed \(training error\): Concurrency limit reached/);
  });

  it('--quiet prints nothing and keeps the exit code', async () => {
    const r = await runCli(['health', '-q'], { env: emu.env });
    expect(r).toMatchObject({ code: 0, stdout: '', stderr: '' });
  });
});

describe('aip system-check', () => {
  it('prints a row per component', async () => {
    const r = await runCli(['system-check'], { env: emu.env });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('api\tok\t\t\ndatabase\tok\t0.8\t\ncpu_queue\tok\t1.2\t\ngpu_queue\tok\t2.4\t\n');
    const json = await runCli(['system-check', '--json'], { env: emu.env });
    expect(JSON.parse(json.stdout)).toEqual({
      api: true,
      database: { success: true, duration_ms: 0.8, error: null },
      cpu_queue: { success: true, duration_ms: 1.2, error: null },
      gpu_queue: { success: true, duration_ms: 2.4, error: null },
    });
  });

  it('exits 1 on 503, naming the failing component, without retrying the 503', async () => {
    await emu.control('PUT', '/system-check', { failing: { gpu_queue: 'no GPU workers' } });
    const r = await runCli(['system-check'], { env: emu.env });
    expect(r.code).toBe(1);
    expect(r.stdout.split('\n')).toContain('gpu_queue\tfailed\t2.4\tno GPU workers');
    expect(r.stderr).toBe('error: system check failed: gpu_queue (no GPU workers)\n');
    expect(await emu.requests({ path: '/training/v1/system-check' })).toHaveLength(1);
    const json = await runCli(['system-check', '--json'], { env: emu.env });
    expect(JSON.parse(json.stdout).gpu_queue).toEqual({
      success: false,
      duration_ms: 2.4,
      error: 'no GPU workers',
    });
  });

  it('handles a 503 without component details (a proxy, say)', async () => {
    await emu.fault({ path: '/training/v1/system-check', status: 503, body: { detail: 'maintenance' } });
    const r = await runCli(['system-check'], { env: emu.env });
    expect(r).toMatchObject({
      code: 1,
      stdout: '',
      stderr: 'error: system check failed (HTTP 503: maintenance)\n',
    });
  });
});
