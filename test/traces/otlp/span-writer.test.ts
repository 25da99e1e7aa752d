// The direct JSON→protobuf span writer against OpenTelemetry's own codec: what it writes decodes
// (with the project's generated protobufjs module) to exactly what the checked-and-converted span
// encodes to; it takes exactly the spans the fast lane of checking takes; and when it gives up, the
// writer is back where it was.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { generateDocuments } from '../../../src/traces/make/generate.js';
import { type PbSpan, SpanCodec, WireReader } from '../../../src/traces/otlp/otlp.js';
import { type JsonProblem, spanFromJson } from '../../../src/traces/otlp/otlp-json.js';
import { fastSpan } from '../../../src/traces/otlp/otlp-json-fast.js';
import { ProtoWriter, varintSize } from '../../../src/traces/otlp/proto-writer.js';
import { writeJsonSpan } from '../../../src/traces/otlp/span-writer.js';
import { patience } from '../../helpers/patience.js';
import { TEST_SEED } from '../../helpers/seed.js';

type Json = Record<string, unknown>;

/** The span the writer wrote (a `spans` field of ScopeSpans), decoded by OpenTelemetry's codec. */
function decodeWritten(bytes: Uint8Array): PbSpan {
  const reader = WireReader.create(bytes);
  expect(reader.uint32()).toBe((2 << 3) | 2);
  const body = reader.bytes();
  expect(reader.pos).toBe(bytes.length);
  return SpanCodec.decode(body);
}

/** The same span through the precise checker and OpenTelemetry's encoder, decoded again. */
function throughCodec(span: unknown): PbSpan {
  const problems: JsonProblem[] = [];
  const converted = spanFromJson(structuredClone(span), problems);
  expect(problems).toEqual([]);
  return SpanCodec.decode(SpanCodec.encode(converted!).finish());
}

function written(span: unknown): Uint8Array | undefined {
  const w = new ProtoWriter(16);
  const ok = writeJsonSpan(w, span);
  return ok ? w.buf.subarray(0, w.pos) : undefined;
}

function generatedSpans(count: number, seed: number): Json[] {
  const spans: Json[] = [];
  const documents = generateDocuments({
    spans: count,
    perDocument: 100,
    seed,
    startNanos: 1795477654561885731n,
  });
  for (const doc of documents)
    for (const rs of doc.resourceSpans as Json[])
      for (const ss of rs.scopeSpans as Json[]) spans.push(...(ss.spans as Json[]));
  return spans;
}

const base = (extra: Json = {}): Json => ({
  traceId: '5b8efff798038103d269b633813fc60c',
  spanId: 'eee19b7ec3c1b174',
  name: 'GET /cart',
  ...extra,
});

describe('writing spans straight from JSON', () => {
  // 3000 spans, each written, decoded and encoded again: ~4 s on a quiet machine, 11 s and more on a
  // busy one (test/helpers/patience.ts).
  it('writes every generated span as OpenTelemetry encodes it', { timeout: patience(180_000) }, () => {
    const spans = generatedSpans(3000, TEST_SEED);
    expect(spans.length).toBe(3000);
    for (const span of spans) {
      const bytes = written(span);
      expect(bytes, JSON.stringify(span)).toBeDefined();
      expect(decodeWritten(bytes!)).toEqual(throughCodec(span));
    }
  });

  it('carries strings exactly: non-ASCII, lone surrogates, and lengths that take 1, 2 and 3 bytes', () => {
    const strings = [
      '',
      'a',
      'ünïcødé',
      'emoji 🚀',
      '\ud800 lone',
      'x'.repeat(127),
      'x'.repeat(128),
      'é'.repeat(70),
      'y'.repeat(20000),
    ];
    for (const s of strings) {
      const span = base({
        name: s || 'n',
        traceState: s,
        attributes: [{ key: s, value: { stringValue: s } }],
        status: { message: s, code: 2 },
      });
      // A lone surrogate has no UTF-8: it goes as U+FFFD, as TextEncoder writes it. (protobufjs's
      // encoder writes its three raw bytes, which strict decoders such as Go's reject.)
      const wellFormed = JSON.parse(JSON.stringify(span).replace(/\\ud800/g, '\ufffd'));
      expect(decodeWritten(written(span)!)).toEqual(throughCodec(wellFormed));
    }
  });

  it('writes 64-bit values exactly at their limits, as strings and as numbers', () => {
    for (const t of ['0', '1', '18446744073709551615', '9007199254740993', 9007199254740991, 0]) {
      for (const i of ['-9223372036854775808', '9223372036854775807', '-1', -1, 127, 128, '0']) {
        const span = base({
          startTimeUnixNano: t,
          endTimeUnixNano: t,
          attributes: [{ key: 'i', value: { intValue: i } }],
          events: [{ timeUnixNano: t, name: 'e' }],
        });
        expect(decodeWritten(written(span)!)).toEqual(throughCodec(span));
      }
    }
  });

  it('reads any decimal 64-bit value as the fast lane does, and refuses one a bit out of range', () => {
    const decimal = fc.oneof(
      fc.bigInt({ min: -(2n ** 63n) - 2n, max: 2n ** 64n + 2n }).map(String),
      fc.stringMatching(/^-?0{0,4}\d{1,20}$/),
    );
    fc.assert(
      fc.property(decimal, decimal, (time, int) => {
        const span = base({ startTimeUnixNano: time, attributes: [{ key: 'i', value: { intValue: int } }] });
        const bytes = written(span);
        expect(bytes !== undefined).toBe(fastSpan(structuredClone(span)));
        if (bytes) expect(decodeWritten(bytes)).toEqual(throughCodec(span));
      }),
      { seed: TEST_SEED, numRuns: 2000 },
    );
  });

  it('keeps which oneof field was set, even at its default', () => {
    const values = [
      { stringValue: '' },
      { boolValue: false },
      { intValue: '0' },
      { doubleValue: 0 },
      { bytesValue: '' },
      { arrayValue: {} },
      { kvlistValue: {} },
      {},
    ];
    for (const value of values) {
      const span = base({ attributes: [{ key: 'k', value }, { key: 'none' }] });
      const decoded = decodeWritten(written(span)!);
      expect(decoded).toEqual(throughCodec(span));
      expect(Object.keys(decoded.attributes![0]!.value ?? {})).toEqual(
        Object.keys(throughCodec(span).attributes![0]!.value ?? {}),
      );
    }
  });

  it('nests values 32 deep and no deeper, as the fast lane does', () => {
    const nested = (depth: number): Json =>
      depth === 0 ? { intValue: '7' } : { arrayValue: { values: [nested(depth - 1)] } };
    for (const depth of [31, 32, 33, 40]) {
      const span = base({ attributes: [{ key: 'deep', value: nested(depth) }] });
      expect(written(span) !== undefined, `depth ${depth}`).toBe(fastSpan(structuredClone(span)));
    }
  });

  it('takes exactly the spans the fast lane takes, and leaves the writer as it was when it does not', () => {
    const spans = generatedSpans(200, TEST_SEED + 1);
    const breakage: Array<(s: Json) => void> = [
      (s) => (s.traceId = '00000000000000000000000000000000'),
      (s) => (s.spanId = 'eee19b7ec3c1b17g'),
      (s) => (s.spanId = 'EEE19B7EC3C1B174'),
      (s) => (s.parentSpanId = ''),
      (s) => (s.parentSpanId = 'abc'),
      (s) => (s.name = ''),
      (s) => (s.kind = 'SPAN_KIND_SERVER'),
      (s) => (s.kind = 6),
      (s) => (s.startTimeUnixNano = '18446744073709551616'),
      (s) => (s.startTimeUnixNano = -1),
      (s) => (s.flags = 2 ** 32),
      (s) => (s.attributes = [{ key: 'k', value: { stringValue: 'a', boolValue: true } }]),
      (s) => (s.attributes = [{ key: 'k', value: { bytesValue: 'abcde' } }]),
      (s) => (s.attributes = [{ key: 'k', value: { doubleValue: 'NaN' } }]),
      (s) => (s.attributes = [{ key: 7 }]),
      (s) => (s.events = [{ timeUnixNano: '1.5' }]),
      (s) => (s.links = [{ traceId: '5b8efff798038103d269b633813fc60c' }]),
      (s) => (s.status = { code: 3 }),
      (s) => (s.status = 'ok'),
      (s) => (s.droppedEventsCount = -1),
    ];
    fc.assert(
      fc.property(fc.nat(spans.length - 1), fc.nat(breakage.length - 1), fc.boolean(), (i, b, broken) => {
        const span = structuredClone(spans[i]!);
        if (broken) breakage[b]!(span);
        const before = JSON.stringify(span);
        const w = new ProtoWriter(8);
        w.tag(1, 0);
        w.varint(42);
        const mark = w.pos;
        const ok = writeJsonSpan(w, span);
        expect(ok).toBe(fastSpan(structuredClone(span)));
        expect(JSON.stringify(span)).toBe(before); // the parsed object is left as it was
        if (!ok) expect(w.pos).toBe(mark);
        else expect(decodeWritten(w.buf.subarray(mark, w.pos))).toEqual(throughCodec(span));
      }),
      { seed: TEST_SEED, numRuns: 500 },
    );
  });

  it('sizes varints as protobuf does', () => {
    for (const [n, size] of [
      [0, 1],
      [127, 1],
      [128, 2],
      [16383, 2],
      [16384, 3],
      [2 ** 21, 4],
      [2 ** 28, 5],
      [2 ** 32 - 1, 5],
    ])
      expect(varintSize(n!)).toBe(size);
  });
});
