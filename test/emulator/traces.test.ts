// The emulated trace ingest: OTLP protobuf only (plain, gzip, deflate), Basic or wandb-api-key
// credentials, routing by resource attributes or the project_id header, and the spans it stored,
// decoded on request.

import { deflateSync, gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { encodeRequest, type PbResourceSpans } from '../../src/traces/otlp/otlp.js';
import { spanFromJson } from '../../src/traces/otlp/otlp-json.js';
import { useEmulator } from '../helpers/emulator.js';

const { emu } = useEmulator();

const URL_PATH = '/trace/agents/otel/v1/traces';
const basic = (key: string) => `Basic ${Buffer.from(`api:${key}`).toString('base64')}`;

function span(name: string, spanId: string) {
  return spanFromJson(
    { traceId: '5b8efff798038103d269b633813fc60c', spanId, name, startTimeUnixNano: '1700000000000000000' },
    [],
  )!;
}

function resourceSpans(
  routing: { entity: string; project: string } | undefined,
  names: string[],
): PbResourceSpans {
  const attributes = [{ key: 'service.name', value: { stringValue: 'svc' } }];
  if (routing) {
    attributes.push({ key: 'wandb.entity', value: { stringValue: routing.entity } });
    attributes.push({ key: 'wandb.project', value: { stringValue: routing.project } });
  }
  return {
    resource: { attributes },
    scopeSpans: [
      {
        scope: { name: 'test' },
        spans: names.map((n, i) => span(n, `00000000000000${String(i + 1).padStart(2, '0')}`)),
      },
    ],
  };
}

async function post(body: Uint8Array | string, headers: Record<string, string>) {
  const res = await fetch(`${emu.origin}${URL_PATH}`, { method: 'POST', headers, body });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

const protobuf = { 'content-type': 'application/x-protobuf' };

describe('trace ingest', () => {
  it('accepts protobuf, plain, gzipped or deflated, with either kind of credentials', async () => {
    const bytes = encodeRequest({
      resourceSpans: [resourceSpans({ entity: 'team', project: 'agents' }, ['a', 'b'])],
    });
    const cases: Array<[Uint8Array, Record<string, string>]> = [
      [bytes, { ...protobuf, authorization: basic(emu.key) }],
      [gzipSync(bytes), { ...protobuf, 'content-encoding': 'gzip', 'wandb-api-key': emu.key }],
      [deflateSync(bytes), { ...protobuf, 'content-encoding': 'deflate', authorization: basic(emu.key) }],
    ];
    for (const [body, headers] of cases) {
      expect(await post(body, headers)).toEqual({
        status: 200,
        body: { accepted_spans: 2, rejected_spans: 0, error_message: '' },
      });
    }
    // The same spans three times: kept once, as the platform keys spans by trace and span id.
    const stored = (await emu.control('GET', '/spans?project=team/agents')).body as Record<string, unknown>;
    expect(stored).toMatchObject({ accepted: 2, duplicates: 4, total: 2, by_project: { 'team/agents': 2 } });
    expect((stored.data as Array<Record<string, unknown>>)[0]).toMatchObject({
      project: 'team/agents',
      scope: { name: 'test' },
      span: {
        traceId: '5b8efff798038103d269b633813fc60c',
        spanId: '0000000000000001',
        name: 'a',
        startTimeUnixNano: '1700000000000000000',
      },
    });
  });

  it('routes by resource attributes first, then the project_id header, and rejects spans with neither', async () => {
    const bytes = encodeRequest({
      resourceSpans: [
        resourceSpans({ entity: 'team', project: 'own' }, ['a']),
        resourceSpans(undefined, ['b', 'c']),
      ],
    });
    const withHeader = await post(bytes, {
      ...protobuf,
      authorization: basic(emu.key),
      project_id: 'team/header',
    });
    expect(withHeader.body).toEqual({ accepted_spans: 3, rejected_spans: 0, error_message: '' });
    const without = await post(bytes, { ...protobuf, authorization: basic(emu.key) });
    expect(without.body).toEqual({
      accepted_spans: 1,
      rejected_spans: 2,
      error_message: expect.stringContaining('2 spans had no project'),
    });
    const state = (await emu.control('GET', '/state')).body as { spans: Record<string, unknown> };
    // Span "a" came twice (once each post): stored once.
    expect(state.spans).toMatchObject({
      accepted: 3,
      duplicates: 1,
      rejected: 2,
      by_project: { 'team/own': 1, 'team/header': 2 },
    });
  });

  it('refuses what is not for it: 401 without a good key, 415 for JSON or an unknown encoding, 400 for garbage', async () => {
    const bytes = encodeRequest({ resourceSpans: [resourceSpans({ entity: 't', project: 'p' }, ['a'])] });
    expect((await post(bytes, protobuf)).status).toBe(401);
    expect((await post(bytes, { ...protobuf, authorization: `Bearer ${emu.key}` })).status).toBe(401);
    expect((await post(bytes, { ...protobuf, authorization: basic('wrong-key') })).status).toBe(401);
    const notApi = `Basic ${Buffer.from(`someone:${emu.key}`).toString('base64')}`;
    expect((await post(bytes, { ...protobuf, authorization: notApi })).status).toBe(401);
    const json = await post('{"resourceSpans": []}', {
      'content-type': 'application/json',
      authorization: basic(emu.key),
    });
    expect(json.status).toBe(415);
    expect(json.body.detail).toMatch(/accepts OTLP protobuf \(application\/x-protobuf\) only/);
    expect(
      (await post(bytes, { ...protobuf, 'content-encoding': 'br', authorization: basic(emu.key) })).status,
    ).toBe(415);
    const notGzip = await post(bytes, {
      ...protobuf,
      'content-encoding': 'gzip',
      authorization: basic(emu.key),
    });
    expect(notGzip.status).toBe(400);
    const garbage = await post(new Uint8Array([0x0a, 0xff, 0xff, 0x03]), {
      ...protobuf,
      authorization: basic(emu.key),
    });
    expect(garbage).toMatchObject({
      status: 400,
      body: { detail: expect.stringMatching(/^The body is not an OTLP ExportTraceServiceRequest/) },
    });
    const cutSpan = Buffer.from(bytes).subarray(0, bytes.length - 3);
    expect((await post(cutSpan, { ...protobuf, authorization: basic(emu.key) })).status).toBe(400);
    expect(((await emu.control('GET', '/spans')).body as { total: number }).total).toBe(0);
  });

  it('filters the stored spans by trace, name, offset and limit; reset forgets them', async () => {
    const bytes = encodeRequest({
      resourceSpans: [resourceSpans({ entity: 't', project: 'p' }, ['a', 'b', 'c'])],
    });
    await post(bytes, { ...protobuf, authorization: basic(emu.key) });
    const page = (await emu.control('GET', '/spans?offset=1&limit=1')).body as {
      total: number;
      data: Array<{ span: { name: string } }>;
    };
    expect(page.total).toBe(3);
    expect(page.data.map((d) => d.span.name)).toEqual(['b']);
    const named = (await emu.control('GET', '/spans?name=c')).body as { total: number };
    expect(named.total).toBe(1);
    expect(((await emu.control('GET', '/spans?trace_id=00')).body as { total: number }).total).toBe(0);
    await emu.control('DELETE', '/spans');
    expect(((await emu.control('GET', '/spans')).body as { total: number }).total).toBe(0);
  });
});
