// What the gateway answers to whatever reaches its port: OTLP/HTTP's own answers (protobuf or JSON, as
// asked), refusals of web pages and misdirected requests before the body is read, bodies that are not
// OTLP, bombs, spans with no project, and a spool at its bound (503 with Retry-After: the exporter's to
// retry, nothing acknowledged lost).

import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { request } from 'node:http';
import { deflateSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningEmulator, startEmulator } from '../../../src/emulator/index.js';
import { encodeRequest } from '../../../src/traces/otlp/otlp.js';
import { send, TEST_KEY } from '../../helpers/emulator.js';
import { patience } from '../../helpers/patience.js';
import { collect, startAip } from '../../helpers/spawn.js';
import { tempDir } from '../../helpers/temp.js';

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

function post(
  origin: string,
  path: string,
  headers: Record<string, string>,
  body: Buffer | string,
  method = 'POST',
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(`${origin}${path}`, { method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }),
      );
    });
    req.on('error', reject);
    req.end(body);
  });
}

const JSON_TYPE = { 'content-type': 'application/json' };
const PROTO_TYPE = { 'content-type': 'application/x-protobuf' };

function jsonSpans(n: number, resource: Record<string, string> = {}, attribute = 'x'): string {
  const hex = (bytes: number) => randomBytes(bytes).toString('hex');
  return JSON.stringify({
    resourceSpans: [
      {
        resource: {
          attributes: Object.entries(resource).map(([key, v]) => ({ key, value: { stringValue: v } })),
        },
        scopeSpans: [
          {
            scope: { name: 't' },
            spans: Array.from({ length: n }, (_, i) => ({
              traceId: hex(16),
              spanId: hex(8),
              name: `span ${i}`,
              kind: 1,
              startTimeUnixNano: '1700000000000000000',
              endTimeUnixNano: '1700000000100000000',
              attributes: [{ key: 'blob', value: { stringValue: attribute } }],
            })),
          },
        ],
      },
    ],
  });
}

let emu: RunningEmulator;
const children: ChildProcess[] = [];

async function gateway(extra: Record<string, string> = {}, args: string[] = []) {
  const env: Record<string, string> = {
    AIP_CONFIG_DIR: tempDir('aip-gateway-config-'),
    AIP_DATA_DIR: tempDir('aip-gateway-'),
    AIP_BASE_URL: emu.urls.base,
    AIP_INFERENCE_URL: emu.urls.inference,
    AIP_TRACE_URL: emu.urls.trace,
    AIP_API_KEY: TEST_KEY,
    AIP_PROJECT: 'local/demo',
    ...extra,
  };
  const { child, match } = await startAip(
    ['traces', 'serve', '--port', '0', '--json', ...args],
    env,
    /Listening on (http:\/\/127\.0\.0\.1:(\d+))\//,
  );
  children.push(child);
  const done = collect(child, patience(60_000));
  return {
    origin: match[1]!,
    port: match[2]!,
    stop: async () => {
      child.kill('SIGINT');
      return done;
    },
  };
}

beforeAll(async () => {
  emu = await startEmulator({ port: 0, apiKeys: [TEST_KEY] });
});
afterAll(async () => {
  // Killed if still running, and waited for: its files are gone before the temp directories are.
  for (const child of children) {
    if (child.exitCode !== null || child.signalCode !== null) continue;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
  }
  await emu.close();
});

async function storedByProject(): Promise<Record<string, number>> {
  const res = await send(`${emu.origin}/_emulator/spans?limit=0`, 'GET', {
    authorization: `Bearer ${TEST_KEY}`,
  });
  return (JSON.parse(res.text) as { by_project: Record<string, number> }).by_project;
}

describe('the gateway receiver', () => {
  it('answers OTLP/HTTP: an empty response in the format asked, gzip and deflate taken', {
    timeout: patience(60_000),
  }, async () => {
    const g = await gateway();
    const json = await post(g.origin, '/v1/traces', JSON_TYPE, jsonSpans(3));
    expect([json.status, json.headers['content-type'], json.body.toString()]).toEqual([
      200,
      'application/json',
      '{}',
    ]);
    const gz = await post(
      g.origin,
      '/v1/traces',
      { ...JSON_TYPE, 'content-encoding': 'gzip' },
      gzipSync(jsonSpans(2)),
    );
    const deflated = await post(
      g.origin,
      '/v1/traces',
      { ...JSON_TYPE, 'content-encoding': 'deflate' },
      deflateSync(jsonSpans(1)),
    );
    expect([gz.status, deflated.status]).toEqual([200, 200]);
    const bytes = encodeRequest({ resourceSpans: [] });
    const proto = await post(g.origin, '/v1/traces', PROTO_TYPE, Buffer.from(bytes));
    expect([proto.status, proto.headers['content-type'], proto.body.length]).toEqual([
      200,
      'application/x-protobuf',
      0,
    ]);
    const r = await g.stop();
    expect(JSON.parse(r.stdout)).toMatchObject({ requests: 4, received: 6, forwarded: 6 });
  });

  it('refuses web pages and misdirected names before reading, and what is not OTLP', {
    timeout: patience(60_000),
  }, async () => {
    const before = await storedByProject();
    const g = await gateway();
    const cases: Array<[string, Promise<Answer>, number, RegExp]> = [
      [
        'another Host',
        post(g.origin, '/v1/traces', { ...JSON_TYPE, host: `attacker.example:${g.port}` }, jsonSpans(1)),
        421,
        /not this gateway/,
      ],
      [
        'another port',
        post(g.origin, '/v1/traces', { ...JSON_TYPE, host: '127.0.0.1:1' }, jsonSpans(1)),
        421,
        /Misdirected/,
      ],
      [
        'a page',
        post(g.origin, '/v1/traces', { ...JSON_TYPE, origin: 'https://attacker.example' }, jsonSpans(1)),
        403,
        /Cross-origin/,
      ],
      [
        'a no-cors request',
        post(g.origin, '/v1/traces', { ...JSON_TYPE, 'sec-fetch-site': 'cross-site' }, jsonSpans(1)),
        403,
        /Cross-site/,
      ],
      ['GET', post(g.origin, '/v1/traces', {}, '', 'GET'), 405, /POST \/v1\/traces/],
      ['metrics', post(g.origin, '/v1/metrics', JSON_TYPE, '{}'), 404, /POST \/v1\/traces/],
      [
        'text/plain',
        post(g.origin, '/v1/traces', { 'content-type': 'text/plain' }, jsonSpans(1)),
        415,
        /application\/x-protobuf or application\/json/,
      ],
      ['no type', post(g.origin, '/v1/traces', {}, jsonSpans(1)), 415, /\(none\)/],
      [
        'br',
        post(g.origin, '/v1/traces', { ...JSON_TYPE, 'content-encoding': 'br' }, jsonSpans(1)),
        415,
        /gzip, deflate or none/,
      ],
      ['not JSON', post(g.origin, '/v1/traces', JSON_TYPE, '{"resourceSpans": ['), 400, /not JSON/],
      [
        'a bad span',
        post(
          g.origin,
          '/v1/traces',
          JSON_TYPE,
          jsonSpans(1).replace(/"traceId":"[0-9a-f]+"/, '"traceId":"xyz"'),
        ),
        400,
        /resourceSpans\[0\]\.scopeSpans\[0\]\.spans\[0\]\.traceId/,
      ],
      [
        'not protobuf',
        post(g.origin, '/v1/traces', PROTO_TYPE, Buffer.from([0x0a, 0xff, 0xff, 0xff, 0x0f, 1])),
        400,
        /not an OTLP protobuf/,
      ],
      [
        'bad gzip',
        post(g.origin, '/v1/traces', { ...JSON_TYPE, 'content-encoding': 'gzip' }, 'not gzip'),
        400,
        /not valid gzip/,
      ],
    ];
    for (const [what, answer, status, message] of cases) {
      const a = await answer;
      expect([what, a.status], a.body.toString()).toEqual([what, status]);
      expect(a.body.toString(), what).toMatch(message);
    }
    const r = await g.stop();
    expect(JSON.parse(r.stdout)).toMatchObject({ requests: 0, received: 0 });
    expect(await storedByProject()).toEqual(before);
  });

  it('refuses a gzip bomb (413) without unpacking it', { timeout: patience(60_000) }, async () => {
    const g = await gateway();
    const bomb = gzipSync(Buffer.alloc(80 * 1024 * 1024, 0x20));
    const a = await post(g.origin, '/v1/traces', { ...JSON_TYPE, 'content-encoding': 'gzip' }, bomb);
    expect(a.status).toBe(413);
    await g.stop();
  });

  it("routes by resource, then the exporter's project_id, then aip's project; none: partial success", {
    timeout: patience(60_000),
  }, async () => {
    const before = await storedByProject();
    const g = await gateway({ AIP_PROJECT: '' });
    const none = await post(g.origin, '/v1/traces', JSON_TYPE, jsonSpans(4));
    expect(none.status).toBe(200);
    expect(JSON.parse(none.body.toString())).toEqual({
      partialSuccess: { rejectedSpans: '4', errorMessage: expect.stringMatching(/no project/) },
    });
    const header = await post(
      g.origin,
      '/v1/traces',
      { ...JSON_TYPE, project_id: 'header-team/header-project' },
      jsonSpans(2),
    );
    const own = await post(
      g.origin,
      '/v1/traces',
      { ...JSON_TYPE, project_id: 'header-team/header-project' },
      jsonSpans(3, { 'wandb.entity': 'own', 'wandb.project': 'attrs' }),
    );
    expect([header.status, JSON.parse(header.body.toString()), own.status]).toEqual([200, {}, 200]);
    const r = await g.stop();
    expect(JSON.parse(r.stdout)).toMatchObject({ received: 9, forwarded: 5, dropped: 4 });
    const after = await storedByProject();
    expect(after['header-team/header-project']! - (before['header-team/header-project'] ?? 0)).toBe(2);
    expect(after['own/attrs']! - (before['own/attrs'] ?? 0)).toBe(3);
  });

  it("at its spool's bound, with the platform away: 503 and Retry-After, all it acknowledged kept", {
    timeout: patience(120_000),
  }, async () => {
    const away = await startEmulator({ port: 0, apiKeys: [TEST_KEY] });
    const origin = away.origin;
    await away.close();
    const g = await gateway({ AIP_TRACE_URL: `${origin}/trace` }, ['--spool-max', '1MB']);
    // Incompressible: each request ~180 KB gzipped, so the bound is met within a few.
    const body = () => jsonSpans(2, {}, randomBytes(64 * 1024).toString('base64'));
    let acknowledged = 0;
    let refused: Answer | undefined;
    for (let i = 0; i < 20 && !refused; i++) {
      const a = await post(g.origin, '/v1/traces', JSON_TYPE, body());
      if (a.status === 200) acknowledged += 2;
      else refused = a;
    }
    expect(refused?.status).toBe(503);
    expect(refused?.headers['retry-after']).toBe('5');
    expect(JSON.parse(refused!.body.toString())).toMatchObject({
      code: 14,
      message: expect.stringMatching(/spool is full/),
    });
    const r = await g.stop();
    const counters = JSON.parse(r.stdout);
    expect(counters).toMatchObject({ spooled: acknowledged, refused: 2, spool: { spans: acknowledged } });
    expect(acknowledged).toBeGreaterThan(0);
    expect(counters.spool.bytes).toBeLessThanOrEqual(1024 * 1024);
  });
});
