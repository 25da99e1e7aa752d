// Trace ingest as it keeps what arrives (traces/otlp/scan.ts, store/span-keys.ts, store/spans.ts): a
// compressed request kept compressed and decoded when asked, spans sent again known by their trace and
// span id across requests and encodings (thousands of them, and ids of odd lengths), a request cut or
// malformed at any byte refused whole.

import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { SpanKeySet } from '../../src/emulator/store/span-keys.js';
import { encodeRequest, type PbSpan } from '../../src/traces/otlp/otlp.js';
import { spanFromJson } from '../../src/traces/otlp/otlp-json.js';
import { useEmulator } from '../helpers/emulator.js';

const { emu } = useEmulator();

const hex = (n: number, bytes: number) => n.toString(16).padStart(bytes * 2, '0');

function request(project: string, spans: Array<{ trace: string; id: string; name: string }>) {
  const [entity, name] = project.split('/');
  return encodeRequest({
    resourceSpans: [
      {
        resource: {
          attributes: [
            { key: 'wandb.entity', value: { stringValue: entity } },
            { key: 'wandb.project', value: { stringValue: name } },
          ],
        },
        scopeSpans: [
          {
            scope: { name: 'test' },
            spans: spans.map(
              (s) =>
                spanFromJson(
                  {
                    traceId: s.trace,
                    spanId: s.id,
                    name: s.name,
                    startTimeUnixNano: '1700000000000000000',
                    attributes: [{ key: 'gen_ai.operation.name', value: { stringValue: 'chat' } }],
                  },
                  [],
                ) as PbSpan,
            ),
          },
        ],
      },
    ],
  });
}

async function post(body: Uint8Array, gzip: boolean) {
  const res = await fetch(`${emu.origin}/trace/agents/otel/v1/traces`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-protobuf',
      'wandb-api-key': emu.key,
      ...(gzip ? { 'content-encoding': 'gzip' } : {}),
    },
    body: gzip ? gzipSync(body) : body,
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

describe('trace ingest keeps bytes and keys', () => {
  it('knows thousands of spans sent again, across requests and encodings, per project', async () => {
    const spans = Array.from({ length: 5_000 }, (_, i) => ({
      trace: hex(Math.floor(i / 10) + 1, 16),
      id: hex(i + 1, 8),
      name: `span-${i}`,
    }));
    expect((await post(request('t/a', spans.slice(0, 3_000)), true)).body.accepted_spans).toBe(3_000);
    // 1,000 again (plain this time), 2,000 new.
    expect((await post(request('t/a', spans.slice(2_000)), false)).body.accepted_spans).toBe(3_000);
    // The same spans in another project are not the same spans.
    await post(request('t/b', spans.slice(0, 10)), true);
    const state = (await emu.control('GET', '/state')).body as { spans: Record<string, unknown> };
    expect(state.spans).toMatchObject({
      accepted: 5_010,
      duplicates: 1_000,
      by_project: { 't/a': 5_000, 't/b': 10 },
    });
    // Decoded when asked, from the gzip request kept as it came and the plain one.
    const listed = (await emu.control('GET', '/spans?project=t/a&offset=2999&limit=2')).body as {
      total: number;
      data: Array<{ span: { name: string; spanId: string } }>;
    };
    expect(listed.total).toBe(5_000);
    expect(listed.data.map((d) => d.span.name)).toEqual(['span-2999', 'span-3000']);
  });

  it('refuses a request cut short anywhere, and keeps nothing of it', async () => {
    const bytes = request('t/c', [{ trace: hex(1, 16), id: hex(1, 8), name: 'x' }]);
    for (let cut = 1; cut < bytes.length; cut++) {
      const answer = await post(bytes.subarray(0, cut), cut % 2 === 0);
      // A cut that ends on a field boundary of the request itself is a shorter request, not a bad one.
      if (answer.status === 200) expect(answer.body.accepted_spans).toBe(0);
      else expect(answer.status).toBe(400);
    }
    const listed = (await emu.control('GET', '/spans?project=t/c')).body as { total: number };
    expect(listed.total).toBe(0);
  });
});

describe('SpanKeySet', () => {
  it('is an exact set of two byte ranges as one key, through growth and deletes', () => {
    const set = new SpanKeySet();
    const bytes = (n: number) => Buffer.from(hex(n, 12), 'hex');
    for (let i = 0; i < 20_000; i++) expect(set.add(bytes(i), 0, 8, bytes(i), 8, 12)).toBe(true);
    expect(set.size).toBe(20_000);
    for (let i = 0; i < 20_000; i += 7) expect(set.add(bytes(i), 0, 8, bytes(i), 8, 12)).toBe(false);
    // The same bytes split differently are the same key, as trace id + span id always were.
    const whole = bytes(5);
    expect(set.add(whole, 0, 12, whole, 0, 0)).toBe(false);
    set.delete(whole, 0, 4, whole, 4, 12);
    expect(set.size).toBe(19_999);
    expect(set.add(whole, 0, 12, whole, 0, 0)).toBe(true);
    set.clear();
    expect(set.add(whole, 0, 12, whole, 0, 0)).toBe(true);
  });
});
