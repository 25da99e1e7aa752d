// Splitting OTLP/JSON into resources, scopes and spans without holding a document: the same parts,
// paths and lines however the text is cut, for JSON Lines, pretty documents and odd key orders.

import { describe, expect, it } from 'vitest';
import { type OtlpJsonEvent, OtlpJsonSplitter } from '../../../src/traces/read/json-stream.js';

function split(text: string, chunkSize = text.length, options = {}): OtlpJsonEvent[] {
  const splitter = new OtlpJsonSplitter(options);
  const events: OtlpJsonEvent[] = [];
  for (let i = 0; i < text.length; i += chunkSize)
    events.push(...splitter.push(text.slice(i, i + chunkSize)));
  events.push(...splitter.end());
  return events;
}

/** The events, in a form that compares: kind, path, line and the value. */
function summary(events: OtlpJsonEvent[]): unknown[] {
  return events.map((e) => {
    if (e.kind === 'problem') return ['problem', e.line, e.message];
    if (e.kind === 'end') return ['end', e.of];
    if (e.kind === 'document') return ['document', e.line];
    if (e.kind === 'encodedSpans') return ['encodedSpans', e.count];
    if ('value' in e) return [e.kind, e.path.join('.'), e.line, e.value];
    return [e.kind, e.path.join('.'), e.line];
  });
}

const doc = (name: string, extra = '') =>
  `{"resourceSpans":[{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"${name}"}}]},"scopeSpans":[{"scope":{"name":"s"},"spans":[{"name":"a {[\\"x\\"]}"},{"name":"b"}]${extra}}]}]}`;

const pretty = `{
  "resourceSpans": [
    {
      "scopeSpans": [
        {
          "spans": [
            { "name": "first", "attributes": [{ "key": "k", "value": { "stringValue": "}]\\\\\\"" } }] },
            { "name": "second" }
          ],
          "scope": { "name": "late scope" },
          "schemaUrl": "https://example.com/s"
        }
      ],
      "resource": { "attributes": [] },
      "unknownField": [1, {"a": "}"}],
      "schemaUrl": "https://example.com/r"
    }
  ]
}
`;

describe('OtlpJsonSplitter', () => {
  it('gives each resource, scope and span of JSON Lines with its path and line', () => {
    const events = summary(split(`${doc('one')}\n\n${doc('two')}\n`));
    expect(events).toEqual([
      ['document', 1],
      ['resourceSpans', 'resourceSpans.0', 1],
      [
        'resource',
        'resourceSpans.0.resource',
        1,
        { attributes: [{ key: 'service.name', value: { stringValue: 'one' } }] },
      ],
      ['scopeSpans', 'resourceSpans.0.scopeSpans.0', 1],
      ['scope', 'resourceSpans.0.scopeSpans.0.scope', 1, { name: 's' }],
      ['span', 'resourceSpans.0.scopeSpans.0.spans.0', 1, { name: 'a {["x"]}' }],
      ['span', 'resourceSpans.0.scopeSpans.0.spans.1', 1, { name: 'b' }],
      ['end', 'scopeSpans'],
      ['end', 'resourceSpans'],
      ['document', 3],
      ...events.slice(1, 9).map((e) => {
        const copy = structuredClone(e) as unknown[];
        if (copy[0] !== 'end') copy[2] = 3;
        if (copy[0] === 'resource')
          copy[3] = { attributes: [{ key: 'service.name', value: { stringValue: 'two' } }] };
        return copy;
      }),
    ]);
  });

  it('walks a pretty document in the order its keys come, with each value on its own line', () => {
    const events = summary(split(pretty));
    expect(events).toEqual([
      ['document', 1],
      ['resourceSpans', 'resourceSpans.0', 3],
      ['scopeSpans', 'resourceSpans.0.scopeSpans.0', 5],
      [
        'span',
        'resourceSpans.0.scopeSpans.0.spans.0',
        7,
        { name: 'first', attributes: [{ key: 'k', value: { stringValue: '}]\\"' } }] },
      ],
      ['span', 'resourceSpans.0.scopeSpans.0.spans.1', 8, { name: 'second' }],
      ['scope', 'resourceSpans.0.scopeSpans.0.scope', 10, { name: 'late scope' }],
      ['scopeSchemaUrl', 'resourceSpans.0.scopeSpans.0.schemaUrl', 11, 'https://example.com/s'],
      ['end', 'scopeSpans'],
      ['resource', 'resourceSpans.0.resource', 14, { attributes: [] }],
      ['resourceSchemaUrl', 'resourceSpans.0.schemaUrl', 16, 'https://example.com/r'],
      ['end', 'resourceSpans'],
    ]);
  });

  it('gives the same events however the text is cut into chunks', () => {
    const text = `${pretty}${doc('three')}\n`;
    const whole = summary(split(text));
    for (const size of [1, 2, 3, 7, 64, 1000]) expect(summary(split(text, size))).toEqual(whole);
  });

  it('locates values inside a span for problems', () => {
    const span = split(pretty).find((e) => e.kind === 'span');
    expect(span && 'lineOf' in span ? span.lineOf(['attributes', 0, 'value']) : 0).toBe(7);
  });

  it('reports syntax errors at their line and carries on with the next document', () => {
    const broken = '{"resourceSpans": [ {"scopeSpans": [ {"spans": [ {"name": "x"} ]} ]}\n  oops\n';
    const text = `${pretty}${broken}${doc('two')}\n[1,2]\n`;
    const events = summary(split(text, 5));
    const problems = events.filter((e) => (e as unknown[])[0] === 'problem');
    expect(problems).toEqual([
      ['problem', 21, "invalid JSON: expected ',' or ']', found \"o\""],
      ['problem', 23, 'expected a JSON object (an OTLP ExportTraceServiceRequest)'],
    ]);
    // The documents on either side are read in full.
    expect(events.filter((e) => (e as unknown[])[0] === 'span')).toHaveLength(5);
  });

  it('once the first document is a line of its own, takes each line alone (JSON Lines)', () => {
    const text = `${doc('one')}\n{"resourceSpans": [\n${doc('two')}\n{"resourceSpans": x}\n${doc('three')}\n`;
    const events = summary(split(text, 7));
    expect(events.filter((e) => (e as unknown[])[0] === 'problem')).toEqual([
      ['problem', 2, 'a document that does not end on its line: JSON Lines needs each document on one line'],
      ['problem', 4, expect.stringMatching(/^invalid JSON \(column 19\): /)],
    ]);
    expect(events.filter((e) => (e as unknown[])[0] === 'span')).toHaveLength(6);
  });

  it('says once that a pretty document cannot follow JSON Lines, not once per line', () => {
    const events = summary(split(`${doc('one')}\n${pretty}${doc('two')}\n`, 11));
    expect(events.filter((e) => (e as unknown[])[0] === 'problem')).toEqual([
      ['problem', 2, 'a document that does not end on its line: JSON Lines needs each document on one line'],
    ]);
    expect(events.filter((e) => (e as unknown[])[0] === 'span')).toHaveLength(4);
  });

  it('scans a JSON Lines line too long to hold whole, value by value', () => {
    const spans = Array.from({ length: 30_000 }, (_, i) => ({
      name: `span ${i}`,
      attributes: [{ key: 'k', value: { stringValue: 'x'.repeat(240) } }],
    }));
    const long = JSON.stringify({ resourceSpans: [{ scopeSpans: [{ spans }] }] });
    expect(long.length).toBeGreaterThan(8 * 1024 * 1024);
    const events = split(`${doc('one')}\n${long}\n${doc('two')}\n`, 1 << 20);
    expect(events.filter((e) => e.kind === 'problem')).toEqual([]);
    const found = events.filter((e) => e.kind === 'span');
    expect(found).toHaveLength(30_004);
    expect(found[2]).toMatchObject({
      line: 2,
      path: ['resourceSpans', 0, 'scopeSpans', 0, 'spans', 0],
      value: { name: 'span 0' },
    });
    expect(found.at(-1)).toMatchObject({ line: 3 });
  });

  it('with jsonLines, a line that is not a whole document is a problem at its column', () => {
    const events = summary(
      split(`${doc('one')}\n{"resourceSpans": [}\n`, 10, { jsonLines: true, firstLine: 41 }),
    );
    expect(events[0]).toEqual(['document', 41]);
    expect(events.at(-1)).toEqual(['problem', 42, expect.stringMatching(/^invalid JSON \(column 20\): /)]);
  });

  it('says when the input ends inside a document', () => {
    expect(summary(split('{"resourceSpans": [{"scopeSpans": [{"spans": [{"name": "x"'))).toContainEqual([
      'problem',
      1,
      'invalid JSON: the input ends inside a value',
    ]);
  });
});

describe('telling JSON from protobuf', () => {
  it('takes JSON for what starts as a JSON object, and protobuf whose length byte is "{" for protobuf', async () => {
    const { looksLikeJson } = await import('../../../src/traces/read/read-input.js');
    for (const text of [
      '{"resourceSpans": []}',
      '\uFEFF  \n{\n  "resourceSpans": [',
      '{}',
      '',
      '  \n',
      '{ "a" : 1 }',
    ]) {
      expect(looksLikeJson(Buffer.from(text))).toBe(true);
    }
    // 0x0a (a newline to JSON), then a length of 123 ("{"), then the ResourceSpans' own tags.
    expect(looksLikeJson(Buffer.from([0x0a, 0x7b, 0x0a, 0x55, 0x0a, 0x12]))).toBe(false);
    expect(looksLikeJson(Buffer.from([0x0a, 0x7b, 0x0a, 0x22, 0x0a, 0x0c, 0x73]))).toBe(false);
    expect(looksLikeJson(Buffer.from([0x0a, 0x05, 0x01]))).toBe(false);
    // A first byte of "{" is never protobuf: broken JSON is still JSON (issue 19).
    for (const text of ['{not json}', '{', '\uFEFF{"resourceSpans": [', '{{'])
      expect(looksLikeJson(Buffer.from(text))).toBe(true);
  });
});
