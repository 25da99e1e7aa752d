// OTLP/JSON ⇄ protobuf: checks with a path for every problem, conversion in place, and the way back
// to canonical JSON, exact for ids, 64-bit integers, doubles, bytes, nested values and enums.

import { describe, expect, it } from 'vitest';
import { decodeRequest, encodeRequest, int64, int64String } from '../../../src/traces/otlp/otlp.js';
import {
  type JsonProblem,
  resourceFromJson,
  resourceToJson,
  scopeFromJson,
  spanFromJson,
  spanToJson,
} from '../../../src/traces/otlp/otlp-json.js';

const span = (extra: Record<string, unknown> = {}) => ({
  traceId: '5b8efff798038103d269b633813fc60c',
  spanId: 'eee19b7ec3c1b174',
  name: 'GET /cart',
  kind: 2,
  startTimeUnixNano: '1544712660000000000',
  endTimeUnixNano: '1544712661000000000',
  ...extra,
});

/** JSON → protobuf → JSON, through the real encoder and decoder. */
function roundTrip(input: Record<string, unknown>): Record<string, unknown> {
  const problems: JsonProblem[] = [];
  const pb = spanFromJson(structuredClone(input), problems);
  expect(problems).toEqual([]);
  const bytes = encodeRequest({ resourceSpans: [{ scopeSpans: [{ spans: [pb!] }] }] });
  return spanToJson(decodeRequest(bytes).resourceSpans[0]!.scopeSpans[0]!.spans[0]!);
}

describe('64-bit integers', () => {
  it('split into halves and back, exactly, both signs, at the limits', () => {
    for (const text of [
      '0',
      '1',
      '4294967296',
      '9007199254740993',
      '9223372036854775807',
      '18446744073709551615',
    ]) {
      expect(int64String(int64(text), false)).toBe(text);
    }
    for (const text of ['-1', '-4294967296', '-9007199254740993', '-9223372036854775808', '123']) {
      expect(int64String(int64(text), true)).toBe(text);
    }
    expect(int64(-1)).toEqual({ low: 0xffffffff, high: 0xffffffff });
    expect(int64(2 ** 40 + 5)).toEqual({ low: 5, high: 256 });
  });
});

describe('spans: JSON to protobuf and back', () => {
  it('keeps every field exactly', () => {
    const input = span({
      parentSpanId: '0102030405060708',
      traceState: 'vendor=x',
      flags: 769,
      attributes: [
        { key: 's', value: { stringValue: 'ünïcødé 🚀 "q" \\ \n' } },
        { key: 'empty', value: { stringValue: '' } },
        { key: 'b', value: { boolValue: false } },
        { key: 'big', value: { intValue: '9223372036854775807' } },
        { key: 'neg', value: { intValue: '-9007199254740993' } },
        { key: 'd', value: { doubleValue: 2 } },
        { key: 'pi', value: { doubleValue: Math.PI } },
        { key: 'nan', value: { doubleValue: 'NaN' } },
        { key: 'bytes', value: { bytesValue: 'AAEC/w==' } },
        { key: 'arr', value: { arrayValue: { values: [{ stringValue: 'a' }, { intValue: '1' }, {}] } } },
        { key: 'kv', value: { kvlistValue: { values: [{ key: 'in', value: { boolValue: true } }] } } },
        { key: 'none' },
      ],
      droppedAttributesCount: 3,
      events: [
        {
          timeUnixNano: '1544712660500000000',
          name: 'retry',
          attributes: [{ key: 'n', value: { intValue: '2' } }],
        },
      ],
      droppedEventsCount: 1,
      links: [
        {
          traceId: 'ffffffffffffffffffffffffffffffff',
          spanId: '00000000000000ff',
          traceState: 'k=v',
          flags: 1,
        },
      ],
      droppedLinksCount: 2,
      status: { code: 2, message: 'boom' },
    });
    expect(roundTrip(input)).toEqual(input);
  });

  it('accepts enum names and numbers written as numbers, and leaves defaults out on the way back', () => {
    const out = roundTrip(
      span({
        kind: 'SPAN_KIND_CLIENT',
        startTimeUnixNano: 1544712660,
        status: { code: 'STATUS_CODE_OK' },
        parentSpanId: '',
      }),
    );
    expect(out).toMatchObject({ kind: 3, startTimeUnixNano: '1544712660', status: { code: 1 } });
    expect(out).not.toHaveProperty('parentSpanId');
    expect(roundTrip(span({ kind: 0, flags: 0, status: {} }))).toEqual(
      Object.fromEntries(Object.entries(span()).filter(([k]) => k !== 'kind')),
    );
  });

  it('converts in place: the span object itself becomes what the encoder takes', () => {
    const input = span();
    const problems: JsonProblem[] = [];
    expect(spanFromJson(input, problems)).toBe(input);
    expect(input.traceId).toBeInstanceOf(Uint8Array);
    expect(input.startTimeUnixNano).toEqual(int64('1544712660000000000'));
  });

  it('reports every problem with its path, and rejects the span', () => {
    const problems: JsonProblem[] = [];
    const bad = span({
      traceId: '00000000000000000000000000000000',
      spanId: 'xyz',
      name: '',
      kind: 9,
      startTimeUnixNano: 1544712660000000000,
      endTimeUnixNano: '-5',
      attributes: [
        { key: 'a', value: { stringValue: 1 } },
        { key: 'b', value: { stringValue: 'x', intValue: '1' } },
        'c',
      ],
      events: [{ timeUnixNano: 'soon' }],
      links: [{ traceId: 'ab', spanId: 'eee19b7ec3c1b174' }],
      status: { code: 'BAD' },
    });
    expect(spanFromJson(bad, problems, ['resourceSpans', 0, 'scopeSpans', 0, 'spans', 7])).toBeUndefined();
    const at = (p: JsonProblem) => p.path.slice(6).join('.');
    expect(problems.map((p) => [at(p), p.message])).toEqual([
      ['traceId', 'an id of all zeros is not valid'],
      ['spanId', 'expected 16 hex digits, not "xyz"'],
      ['name', 'required: a span needs a name'],
      ['kind', expect.stringMatching(/^expected one of 0 \(SPAN_KIND_UNSPECIFIED\), .* not 9$/)],
      [
        'startTimeUnixNano',
        '1544712660000000000 is too large for a JSON number (parsers round it): write it as a string',
      ],
      ['endTimeUnixNano', 'expected an unsigned 64-bit integer as a decimal string, not "-5"'],
      ['attributes.0.value.stringValue', 'expected a string, not 1'],
      ['attributes.1.value', 'expected one value, not stringValue and intValue'],
      ['attributes.2', 'expected {"key": …, "value": …}, not "c"'],
      ['events.0.timeUnixNano', 'expected an unsigned 64-bit integer as a decimal string, not "soon"'],
      ['links.0.traceId', 'expected 32 hex digits, not "ab"'],
      ['status.code', expect.stringMatching(/^expected one of 0 \(STATUS_CODE_UNSET\)/)],
    ]);
  });

  it('checks resources and scopes the same way', () => {
    const problems: JsonProblem[] = [];
    resourceFromJson(
      { attributes: [{ key: 'k', value: { intValue: 'x' } }], droppedAttributesCount: -1 },
      problems,
      ['r'],
    );
    scopeFromJson({ name: 5, version: '1' }, problems, ['s']);
    expect(problems.map((p) => p.path.join('.'))).toEqual([
      'r.attributes.0.value.intValue',
      'r.droppedAttributesCount',
      's.name',
    ]);
    const resource = {
      attributes: [{ key: 'service.name', value: { stringValue: 'x' } }],
      entityRefs: [{ type: 'service', idKeys: ['service.name'] }],
    };
    expect(resourceToJson(resourceFromJson(structuredClone(resource), []))).toEqual(resource);
  });
});
