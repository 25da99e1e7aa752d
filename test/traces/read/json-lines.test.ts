// Reading JSON Lines with the transcoder (bytes straight to protobuf) against reading them the
// ordinary way (JSON.parse, the checkers, OpenTelemetry's encoder where the fast lane does not take a
// span): for every kind of line, plain or odd, valid or not, the same spans reach the batches (decoded
// by OpenTelemetry's own codec), with the same counts and the same problems at the same lines. And the
// transcoder does take the plain lines: a test where it gave up on everything would prove nothing.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { generateDocuments } from '../../../src/traces/make/generate.js';
import { decodeRequest } from '../../../src/traces/otlp/otlp.js';
import { withRouting } from '../../../src/traces/otlp/routing.js';
import { BatchBuilder } from '../../../src/traces/read/batches.js';
import { readJsonLinesPiece } from '../../../src/traces/read/json-lines.js';
import { JsonSpanReader } from '../../../src/traces/read/json-reader.js';
import { OtlpJsonSplitter } from '../../../src/traces/read/json-stream.js';
import { LineTranscoder } from '../../../src/traces/read/line-transcoder.js';
import { Problems } from '../../../src/traces/read/problems.js';
import { patience } from '../../helpers/patience.js';
import { TEST_SEED } from '../../helpers/seed.js';

type Json = Record<string, unknown>;
const project = { entity: 'team', project: 'lines' };

/** What a reading left: every span sent (with its resource and scope, decoded), counts and problems. */
function outcome(read: (reader: JsonSpanReader) => void) {
  const spans: unknown[] = [];
  const problems = new Problems();
  const builder = new BatchBuilder(
    { spans: 7, bytes: 4096 },
    (c) => withRouting(c.resource, project),
    (batch) => {
      for (const rs of decodeRequest(batch.bytes).resourceSpans)
        for (const ss of rs.scopeSpans)
          for (const span of ss.spans)
            spans.push({
              resource: rs.resource,
              scope: ss.scope,
              schemas: [rs.schemaUrl, ss.schemaUrl],
              span,
            });
    },
  );
  const reader = new JsonSpanReader(builder, problems, undefined);
  read(reader);
  builder.flush();
  return {
    spans,
    problems: problems.list,
    count: problems.count,
    read: reader.spans,
    documents: reader.documents,
  };
}

function bothWays(text: string, firstLine = 1, maxLineBytes?: number) {
  const bytes = Buffer.from(text);
  let counts = { transcoded: 0, ordinary: 0 };
  const fast = outcome((reader) => {
    counts = readJsonLinesPiece(bytes, reader, new LineTranscoder(), { firstLine, maxLineBytes });
  });
  const ordinary = outcome((reader) => {
    const splitter = new OtlpJsonSplitter({ firstLine, jsonLines: true, maxLineBytes });
    for (const event of [...splitter.push(text), ...splitter.end()]) reader.handle(event);
  });
  return { fast, ordinary, counts };
}

function documents(seed: number, spans = 120): Json[] {
  return [
    ...generateDocuments({
      spans,
      perDocument: 20,
      seed,
      project: { entity: 'team', project: 'lines' },
      startNanos: 1795477654561885731n,
    }),
  ];
}

/** JSON with every character outside ASCII, the slashes of URLs and some letters of values as escapes. */
const escaped = (value: unknown) =>
  JSON.stringify(value)
    .replace(/[\u0080-\uffff]/g, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`)
    .replace(/https:\/\//g, 'https:\\/\\/')
    .replace(
      /"(stringValue|name)":"([a-z])/g,
      (_m, key, ch) => `"${key}":"\\u00${ch.charCodeAt(0).toString(16)}`,
    );

/** A value nested `depth` arrays deep. */
const deep = (depth: number) =>
  `${'{"arrayValue":{"values":['.repeat(depth)}{"intValue":"1"}${']}}'.repeat(depth)}`;

/** Ways to write a line that are still the same document, or are not quite right, or not JSON at all. */
const variants: Array<[string, (doc: Json) => string]> = [
  ['plain', (d) => JSON.stringify(d)],
  ['spaced', (d) => JSON.stringify(d, null, 1).replace(/\n/g, ' ')],
  ['escaped', escaped],
  ['with \\r\\n', (d) => `${JSON.stringify(d)}\r`],
  ['keys in reverse order', (d) => JSON.stringify(reverseKeys(d))],
  [
    'schemaUrl after the spans',
    (d) =>
      JSON.stringify(d).replace(
        /\]\}\]\}\]\}$/,
        '],"schemaUrl":"https://s/1"}],"schemaUrl":"https://r/1"}]}',
      ),
  ],
  [
    'an unknown key in a span',
    (d) => JSON.stringify(d).replace('"spans":[{', '"spans":[{"x":[1,{"y":null}],'),
  ],
  [
    'null optional fields',
    (d) => JSON.stringify(d).replace(/"parentSpanId":"[0-9a-f]+"/g, '"parentSpanId":null'),
  ],
  ['empty parent ids', (d) => JSON.stringify(d).replace(/"parentSpanId":"[0-9a-f]+"/g, '"parentSpanId":""')],
  [
    'upper-case ids',
    (d) =>
      JSON.stringify(d).replace(
        /"(traceId|spanId)":"([0-9a-f]+)"/g,
        (_m, k, v) => `"${k}":"${v.toUpperCase()}"`,
      ),
  ],
  ['a duplicate key', (d) => JSON.stringify(d).replace('"spans":[{', '"spans":[{"name":"first",')],
  ['enum names', (d) => JSON.stringify(d).replace(/"kind":2/g, '"kind":"SPAN_KIND_SERVER"')],
  ['1.0 for an integer', (d) => JSON.stringify(d).replace(/"kind":3/g, '"kind":3.0')],
  [
    'times as numbers',
    (d) => JSON.stringify(d).replace(/"startTimeUnixNano":"(\d{1,15})\d*"/g, '"startTimeUnixNano":$1'),
  ],
  [
    'a zero trace id',
    (d) => JSON.stringify(d).replace(/"traceId":"[0-9a-f]+"/, `"traceId":"${'0'.repeat(32)}"`),
  ],
  ['a short span id', (d) => JSON.stringify(d).replace(/"spanId":"([0-9a-f]+)"/, '"spanId":"abc"')],
  ['an empty name', (d) => JSON.stringify(d).replace(/"name":"[^"]+","kind"/, '"name":"","kind"')],
  ['two values set', (d) => JSON.stringify(d).replace('{"stringValue":', '{"boolValue":true,"stringValue":')],
  [
    'a lone surrogate',
    (d) => JSON.stringify(d).replace(/"name":"([^"]+)","kind"/, '"name":"\\ud800$1","kind"'),
  ],
  [
    'a surrogate pair',
    (d) => JSON.stringify(d).replace(/"name":"([^"]+)","kind"/, '"name":"\\ud83d\\ude80$1","kind"'),
  ],
  ['a bad escape', (d) => JSON.stringify(d).replace(/"name":"([^"]+)","kind"/, '"name":"\\x$1","kind"')],
  ['cut short', (d) => JSON.stringify(d).slice(0, -40)],
  ['a trailing comma', (d) => JSON.stringify(d).replace(/\]\}\]\}\]\}$/, ',]}]}]}')],
  ['something after it', (d) => `${JSON.stringify(d)} x`],
  ['a leading zero', (d) => JSON.stringify(d).replace(/"kind":2/, '"kind":02')],
  [
    'no resource routing',
    (d) => JSON.stringify(d).replace(/\{"key":"wandb\.(entity|project)"[^}]*\}\},?/g, ''),
  ],
  [
    'a bad resource',
    (d) => JSON.stringify(d).replace('"resource":{', '"resource":{"droppedAttributesCount":-1,'),
  ],
  [
    'a null resource',
    (d) => JSON.stringify(d).replace(/"resource":\{.*?\},"scopeSpans"/, '"resource":null,"scopeSpans"'),
  ],
  ['an empty document', () => '{}'],
  ['a blank line', () => ''],
  ['not an object', () => '[1,2]'],
  ...[32, 33].map((depth): [string, (doc: Json) => string] => [
    `a value ${depth} deep in a link`,
    (d) =>
      JSON.stringify(d).replace(
        '"spans":[{',
        `"spans":[{"droppedLinksCount":0,"links":[{"traceId":"${'ab'.repeat(16)}","spanId":"${'cd'.repeat(8)}","attributes":[{"key":"deep","value":${deep(depth)}}]}],`,
      ),
  ]),
  [
    'big numbers',
    (d) => JSON.stringify(d).replace(/"doubleValue":[^}]+/g, '"doubleValue":1.7976931348623157e308'),
  ],
];

/** The variants the transcoder takes as they are; it leaves the others to the ordinary reader. */
const TAKEN = new Set([
  'plain',
  'spaced',
  'escaped',
  'with \\r\\n',
  'keys in reverse order',
  'schemaUrl after the spans',
  'null optional fields',
  'empty parent ids',
  'upper-case ids',
  'times as numbers',
  'two values set', // in the resource, which is parsed as usual
  'a bad resource',
  'a lone surrogate',
  'a surrogate pair',
  'a value 32 deep in a link',
  'big numbers',
]);

function reverseKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(reverseKeys);
  if (value && typeof value === 'object')
    return Object.fromEntries(
      Object.entries(value)
        .reverse()
        .map(([k, v]) => [k, reverseKeys(v)]),
    );
  return value;
}

describe('JSON Lines, transcoded', () => {
  it('sends what the ordinary reader sends for plain generated lines, and transcodes every one', () => {
    const text = `${documents(TEST_SEED, 600)
      .map((d) => JSON.stringify(d))
      .join('\n')}\n`;
    const { fast, ordinary, counts } = bothWays(text);
    expect(counts).toEqual({ transcoded: 30, ordinary: 0 });
    expect(fast.read).toBe(600);
    expect(fast.spans.length).toBe(600);
    expect(fast).toEqual(ordinary);
  });

  for (const [name, write] of variants) {
    it(`reads a line written with ${name} as the ordinary reader does`, () => {
      const docs = documents(TEST_SEED + name.length, 60);
      // The odd line between plain ones, so that line numbers and what follows it are checked too.
      const text = [JSON.stringify(docs[0]), write(docs[1]!), JSON.stringify(docs[2])].join('\n');
      const { fast, ordinary, counts } = bothWays(text, 5);
      expect(counts.transcoded).toBe(TAKEN.has(name) ? 3 : 2);
      expect(fast).toEqual(ordinary);
    });
  }

  // 150 mixes, each read both ways: ~3 s on a quiet machine, 10 s and more on a busy one
  // (test/helpers/patience.ts).
  it('reads any mix of those lines as the ordinary reader does', { timeout: patience(180_000) }, () => {
    const docs = documents(TEST_SEED + 7, 200);
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.nat(docs.length - 1), fc.nat(variants.length - 1)), {
          minLength: 1,
          maxLength: 8,
        }),
        (picks) => {
          const text = picks.map(([d, v]) => variants[v]![1](docs[d]!)).join('\n');
          const { fast, ordinary } = bothWays(text);
          expect(fast).toEqual(ordinary);
        },
      ),
      { seed: TEST_SEED, numRuns: 150 },
    );
  });

  it('leaves the lines after a long one still open to the ordinary reader, which reads them as its continuation', () => {
    // A line over a third of the line limit is scanned value by value; left open, the lines below are
    // its document's (and a syntax error), not documents of their own (the review's crash).
    const span = (name: string) => JSON.stringify({ traceId: 'ab'.repeat(16), spanId: 'cd'.repeat(8), name });
    // Short enough to be transcoded: under 400 bytes, a third of the limit.
    const short = (name: string) =>
      `{"resourceSpans":[{"resource":{"attributes":[{"key":"wandb.entity","value":{"stringValue":"e"}},{"key":"wandb.project","value":{"stringValue":"p"}}]},"scopeSpans":[{"spans":[${span(name)}]}]}]}`;
    const [a, b] = [short('a'), short('b')];
    const open = `{"resourceSpans":[{"resource":{"attributes":[]},"scopeSpans":[{"spans":[${span('x'.repeat(600))},`;
    for (const text of [
      [a, open, b, `${span('last')}]}]}]}`].join('\n'),
      [a, open, b, b].join('\n'),
      [open, `${span('y')}]}]}]}`, b].join('\n'),
    ]) {
      const { fast, ordinary, counts } = bothWays(text, 1, 1200);
      expect(fast).toEqual(ordinary);
      expect(fast.count).toBeGreaterThan(0);
      expect(counts.transcoded).toBeGreaterThan(0);
    }
  });

  it('gives up, and leaves it to the ordinary reader, on bytes that are not UTF-8', () => {
    const docs = documents(TEST_SEED, 40);
    const good = Buffer.from(JSON.stringify(docs[0]));
    const bad = Buffer.from(
      JSON.stringify(docs[1]).replace('"spans":[{"traceId"', '"spans":[{"name":"XX","traceId"'),
    );
    const at = bad.indexOf('"XX"') + 1;
    bad[at] = 0xff; // not UTF-8: decoding makes it U+FFFD
    const bytes = Buffer.concat([good, Buffer.from('\n'), bad]);
    let counts = { transcoded: 0, ordinary: 0 };
    const fast = outcome((reader) => {
      counts = readJsonLinesPiece(bytes, reader, new LineTranscoder(), { firstLine: 1 });
    });
    const ordinary = outcome((reader) => {
      const splitter = new OtlpJsonSplitter({ jsonLines: true });
      for (const event of [...splitter.push(bytes.toString('utf8')), ...splitter.end()]) reader.handle(event);
    });
    expect(counts).toEqual({ transcoded: 1, ordinary: 1 });
    expect(fast).toEqual(ordinary);
  });
});
