import { describe, expect, it } from 'vitest';
import type { DocumentEvent } from '../../src/validate/documents.js';
import { byteChunks, checkGroups, randomPieces, readAll, splitEvery } from './helpers.js';

const NOT_CLOSED = 'the JSON array is not closed: the file ends before its "]"';
const TRAILING = 'unexpected text after the end of the JSON array';

const documents = (events: DocumentEvent[]) => events.filter((e) => e.kind === 'document');
const problems = (events: DocumentEvent[]) => events.filter((e) => e.kind === 'problem');
/** Each document as [line, index, parsed value]. */
const parsed = (events: DocumentEvent[]) =>
  documents(events).map((d) => [d.line, d.index, JSON.parse(d.text) as unknown]);

describe('readDocuments: JSON Lines', () => {
  it('yields the format first, then one document per line with its line and index', async () => {
    const events = await readAll(['{"a":1}\n{"b":2}\n{"c":3}\n']);
    expect(events).toEqual([
      { kind: 'format', format: 'jsonl' },
      { kind: 'document', text: '{"a":1}', line: 1, index: 0 },
      { kind: 'document', text: '{"b":2}', line: 2, index: 1 },
      { kind: 'document', text: '{"c":3}', line: 3, index: 2 },
    ]);
  });

  it('skips blank and whitespace-only lines but still counts them', async () => {
    const events = await readAll(['\n{"a":1}\n\n   \n\t\n{"b":2}\n\n']);
    expect(events).toEqual([
      { kind: 'format', format: 'jsonl' },
      { kind: 'document', text: '{"a":1}', line: 2, index: 0 },
      { kind: 'document', text: '{"b":2}', line: 6, index: 1 },
    ]);
  });

  it('accepts CRLF line ends (the \\r is not part of the document), blank CRLF lines included', async () => {
    const events = await readAll(['{"a":1}\r\n\r\n{"b":"x"}\r\n{"c":3}']);
    expect(documents(events)).toEqual([
      { kind: 'document', text: '{"a":1}', line: 1, index: 0 },
      { kind: 'document', text: '{"b":"x"}', line: 3, index: 1 },
      { kind: 'document', text: '{"c":3}', line: 4, index: 2 },
    ]);
  });

  it('reads a last line that has no line end', async () => {
    const events = await readAll(['{"a":1}\n{"b":2}']);
    expect(documents(events).map((d) => d.text)).toEqual(['{"a":1}', '{"b":2}']);
  });

  it('drops a byte-order mark given as text', async () => {
    const events = await readAll(['\ufeff{"a":1}\n{"b":2}\n']);
    expect(events[0]).toEqual({ kind: 'format', format: 'jsonl' });
    expect(documents(events)[0]).toEqual({ kind: 'document', text: '{"a":1}', line: 1, index: 0 });
  });

  it('drops a byte-order mark given as bytes, even split across chunks', async () => {
    const bytes = Buffer.from('\ufeff{"a":1}\n', 'utf8');
    expect(bytes[0]).toBe(0xef);
    for (const chunks of [[bytes], byteChunks(bytes), [bytes.subarray(0, 2), bytes.subarray(2)]]) {
      const events = await readAll(chunks);
      expect(documents(events)).toEqual([{ kind: 'document', text: '{"a":1}', line: 1, index: 0 }]);
    }
  });

  it('tells JSON Lines from leading blank lines followed by an object', async () => {
    const events = await readAll(['\n\n', '   ', '{"a":1}\n']);
    expect(events).toEqual([
      { kind: 'format', format: 'jsonl' },
      { kind: 'document', text: '   {"a":1}', line: 3, index: 0 },
    ]);
  });

  it('hands on a line that is not JSON as it is (JSON.parse reports it later)', async () => {
    const events = await readAll(['{"a":1}\nnot json, ] [\n']);
    expect(documents(events)[1]).toEqual({ kind: 'document', text: 'not json, ] [', line: 2, index: 1 });
    expect(problems(events)).toEqual([]);
  });
});

describe('readDocuments: one JSON array', () => {
  const pretty = [
    '[', // 1
    '  {', // 2: element 0
    '    "trajectories": [',
    '      { "reward": 1 }',
    '    ]',
    '  },', // 6
    '',
    '  {"trajectories": []},  {"trajectories": [{"reward": 2}]},', // 8: elements 1 and 2
    '  [', // 9: element 3
    '    1,',
    '    2',
    '  ]',
    '  ,', // 13
    '  "last"', // 14: element 4
    ']', // 15
  ].join('\n');

  it('reads a pretty-printed array spanning many lines, each element with the line it starts on', async () => {
    const events = await readAll([pretty]);
    expect(events[0]).toEqual({ kind: 'format', format: 'array' });
    expect(parsed(events)).toEqual([
      [2, 0, { trajectories: [{ reward: 1 }] }],
      [8, 1, { trajectories: [] }],
      [8, 2, { trajectories: [{ reward: 2 }] }],
      [9, 3, [1, 2]],
      [14, 4, 'last'],
    ]);
    expect(problems(events)).toEqual([]);
    // The reader agrees with JSON.parse on the whole text.
    expect(parsed(events).map((d) => d[2])).toEqual(JSON.parse(pretty));
  });

  it('reads an array of primitives, each element text exactly as written', async () => {
    const events = await readAll(['[1, -2.5e3, "two", true, false, null, [], {}]']);
    expect(documents(events).map((d) => d.text)).toEqual([
      '1',
      '-2.5e3',
      '"two"',
      'true',
      'false',
      'null',
      '[]',
      '{}',
    ]);
    expect(documents(events).map((d) => d.index)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect(documents(events).every((d) => d.line === 1)).toBe(true);
  });

  it('is not confused by brackets, braces, commas, escaped quotes and backslashes inside strings', async () => {
    const values = [
      { s: 'a,b]}[{"q"' },
      'x"], ["y',
      'ends with a backslash \\',
      '\\"]',
      'escaped\nnew\r\nlines, ] }',
      { nested: ['[', ']', '{', '}', ','], 'key, ]': '"' },
      'tab\there \u0000 \u2028',
    ];
    const text = `[${values.map((v) => JSON.stringify(v)).join(',\n')}]`;
    const events = await readAll([text]);
    expect(parsed(events)).toEqual(values.map((v, i) => [i + 1, i, v]));
    expect(problems(events)).toEqual([]);
  });

  it('counts lines inside multi-line elements for the next element', async () => {
    const text = '[\n  {\n    "a": "x\\ny"\n  },\n  {\n    "b": [\n      1\n    ]\n  },\n  3\n]\n';
    const events = await readAll([text]);
    expect(parsed(events)).toEqual([
      [2, 0, { a: 'x\ny' }],
      [5, 1, { b: [1] }],
      [10, 2, 3],
    ]);
  });

  it('counts CRLF line ends once', async () => {
    const events = await readAll(['[\r\n  {"a": 1},\r\n\r\n  {"b": 2}\r\n]\r\n']);
    expect(parsed(events)).toEqual([
      [2, 0, { a: 1 }],
      [4, 1, { b: 2 }],
    ]);
    expect(problems(events)).toEqual([]);
  });

  it('tells an array from leading blank lines and a byte-order mark', async () => {
    const events = await readAll([Buffer.from('\ufeff\n\n  [\n {"a": 1}]', 'utf8')]);
    expect(events[0]).toEqual({ kind: 'format', format: 'array' });
    expect(parsed(events)).toEqual([[4, 0, { a: 1 }]]);
  });

  it('reads an empty array as no documents and no problems', async () => {
    expect(await readAll(['[]'])).toEqual([{ kind: 'format', format: 'array' }]);
    expect(await readAll(['  [ \n\t ]  \n'])).toEqual([{ kind: 'format', format: 'array' }]);
  });

  it('hands on two elements without a comma between them as one element (JSON.parse refuses it)', async () => {
    const events = await readAll(['[\n  {"a": 1}\n  {"b": 2}\n]']);
    const docs = documents(events);
    expect(docs).toHaveLength(1);
    expect(docs[0]!.line).toBe(2);
    expect(() => JSON.parse(docs[0]!.text)).toThrow();
  });
});

describe('readDocuments: framing problems', () => {
  it('reports an array that is not closed, at the line where the file ends', async () => {
    const events = await readAll(['[\n  {"a": 1},\n  {"b": 2}']);
    expect(parsed(events)).toEqual([
      [2, 0, { a: 1 }],
      [3, 1, { b: 2 }],
    ]);
    expect(problems(events)).toEqual([{ kind: 'problem', problem: NOT_CLOSED, line: 3 }]);
  });

  it('hands on the unfinished last element of an unclosed array, then reports the array', async () => {
    const events = await readAll(['[\n  {"a": 1},\n  {"b": [1,\n    2']);
    expect(events.slice(1)).toEqual([
      { kind: 'document', text: '{"a": 1}', line: 2, index: 0 },
      { kind: 'document', text: '{"b": [1,\n    2', line: 3, index: 1 },
      { kind: 'problem', problem: NOT_CLOSED, line: 4 },
    ]);
  });

  it('reports a lone "[" as an unclosed array', async () => {
    expect(await readAll(['['])).toEqual([
      { kind: 'format', format: 'array' },
      { kind: 'problem', problem: NOT_CLOSED, line: 1 },
    ]);
  });

  it('reports an unclosed array after a comma', async () => {
    const events = await readAll(['[\n  {"a": 1},\n  ']);
    expect(parsed(events)).toEqual([[2, 0, { a: 1 }]]);
    // Reported on the last line with anything on it.
    expect(problems(events)).toEqual([{ kind: 'problem', problem: NOT_CLOSED, line: 2 }]);
  });

  it('reports text after the array once, at the line where it starts', async () => {
    const events = await readAll(['[\n  1,\n  2\n]\n\n  oops\nmore text ] [\n']);
    expect(parsed(events)).toEqual([
      [2, 0, 1],
      [3, 1, 2],
    ]);
    expect(problems(events)).toEqual([{ kind: 'problem', problem: TRAILING, line: 6 }]);
  });

  it('reports a second array after the first one, and an extra "]"', async () => {
    expect(problems(await readAll(['[1]\n[2]']))).toEqual([{ kind: 'problem', problem: TRAILING, line: 2 }]);
    expect(problems(await readAll(['[1]]']))).toEqual([{ kind: 'problem', problem: TRAILING, line: 1 }]);
  });

  it('accepts whitespace (and CRLF) after the array', async () => {
    expect(problems(await readAll(['[1]\r\n\r\n  \t\n']))).toEqual([]);
  });

  it('reads an empty file as JSON Lines with no documents and no problems', async () => {
    expect(await readAll([''])).toEqual([{ kind: 'format', format: 'jsonl' }]);
    expect(await readAll([])).toEqual([{ kind: 'format', format: 'jsonl' }]);
    expect(await readAll([Buffer.alloc(0)])).toEqual([{ kind: 'format', format: 'jsonl' }]);
  });

  it('reads a file of blank lines (or only a byte-order mark) as no documents', async () => {
    expect(await readAll(['\n  \n\r\n\t'])).toEqual([{ kind: 'format', format: 'jsonl' }]);
    expect(await readAll([Buffer.from('\ufeff', 'utf8')])).toEqual([{ kind: 'format', format: 'jsonl' }]);
  });
});

describe('readDocuments: chunk boundaries do not change the result', () => {
  const jsonl = [
    '\ufeff{"trajectories":[{"reward":1,"logs":["a,b]","}{"]}]}',
    '',
    '{"s":"escaped \\"quote\\" and \\\\ backslash, ] [","n":"line\\nbreak"}\r',
    '   \t',
    '{"u":"héllo € 😀 ✓"}\r',
    '[1,2,3]',
    '"last"',
  ].join('\n');
  const array = [
    '\ufeff  ',
    '[',
    '  {"trajectories": [',
    '    {"reward": -1.5, "logs": ["]", "[", "{", "}", ",", "\\"", "\\\\"]}',
    '  ]},',
    '',
    '  "a string with a backslash at the end \\\\",',
    '  {"u": "héllo € 😀 ✓", "e": "\\\\\\"]"},\r',
    '  [[], {}, [{"x": [1, [2, [3]]]}]],',
    '  null',
    ']',
    '  ',
  ].join('\n');

  // What the documents must be, worked out without readDocuments (the text minus its byte-order mark).
  const jsonlValues = jsonl
    .slice(1)
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as unknown);
  const arrayValues = JSON.parse(array.slice(1)) as unknown[];

  for (const [name, text, values, lines] of [
    ['JSON Lines', jsonl, jsonlValues, [1, 3, 5, 6, 7]],
    ['a JSON array', array, arrayValues, [3, 7, 8, 9, 10]],
  ] as const) {
    describe(name, () => {
      it('has a reference reading (one chunk) with the expected documents', async () => {
        const reference = await readAll([text]);
        expect(values).toHaveLength(5);
        expect(documents(reference).map((d) => JSON.parse(d.text) as unknown)).toEqual(values);
        expect(documents(reference).map((d) => d.line)).toEqual(lines);
        expect(problems(reference)).toEqual([]);
      });

      it('reads the same from one-character chunks', async () => {
        expect(await readAll(splitEvery(text, 1))).toEqual(await readAll([text]));
      });

      it('reads the same from one-byte chunks (splitting multi-byte characters)', async () => {
        const bytes = Buffer.from(text, 'utf8');
        expect(bytes.length).toBeGreaterThan(text.length); // there are multi-byte characters to split
        expect(await readAll(byteChunks(bytes))).toEqual(await readAll([text]));
      });

      it('reads the same from random chunk sizes, as text and as bytes', async () => {
        const reference = await readAll([text]);
        for (let seed = 1; seed <= 40; seed++) {
          const maxSize = [2, 3, 7, 16, 64][seed % 5]!;
          expect(await readAll(randomPieces(text, seed, maxSize))).toEqual(reference);
          expect(await readAll(randomPieces(Buffer.from(text, 'utf8'), seed, maxSize))).toEqual(reference);
        }
      });
    });
  }

  it('reports framing problems at the same lines whatever the chunking', async () => {
    for (const text of ['[\n  {"a": "]"},\n  {"b": 2}', '[\n  1\n]\n\n  x']) {
      const reference = await readAll([text]);
      expect(problems(reference)).toHaveLength(1);
      expect(await readAll(splitEvery(text, 1))).toEqual(reference);
      for (let seed = 100; seed < 110; seed++)
        expect(await readAll(randomPieces(text, seed, 5))).toEqual(reference);
    }
  });
});

describe('array framing: malformed separators', () => {
  // The file is announced as one JSON array; an extra comma makes it invalid JSON, which every other
  // JSON reader refuses. readDocuments skips any run of commas between elements (documents.ts, the
  // `code === 44` branch), so these files pass validation without a single problem.
  it('reports a doubled comma between elements', async () => {
    const { checked } = await checkGroups(
      'groups.json',
      '[\n  {"trajectories": []},,\n  {"trajectories": []}\n]',
    );
    expect(checked.problems).toEqual([expect.objectContaining({ line: 2 })]);
  });

  it('reports a trailing comma before the closing "]"', async () => {
    const { checked } = await checkGroups('groups.json', '[\n  {"trajectories": []},\n]');
    expect(checked.problems).toEqual([expect.objectContaining({ line: 2 })]);
  });

  it('reports a comma before the first element', async () => {
    const { checked } = await checkGroups('groups.json', '[,\n  {"trajectories": []}\n]');
    expect(checked.problems).toEqual([expect.objectContaining({ line: 1 })]);
  });
});
