// The line-size limit (AIP_MAX_LINE_BYTES, src/api/limits.ts) on every line-oriented input aip reads:
// RL and SFT training data (jobs validate, jobs create, models log), chat transcripts, and OTLP/JSON
// (JSON Lines and pretty documents, where the limit is on each resource, scope and span) and OTLP
// protobuf. A line over the limit is a problem reported at its line, the rest of the file is still
// checked, the exit is 2 and nothing is sent; and it is passed over without being held, which the
// memory tests show by running aip with a V8 heap far smaller than the line (a reader that held it
// would crash). The tests lower the limit to 1 MiB so that their files are small and fast.
//
// AIP_TEST_BIG=1 also measures peak memory for a 2 GiB single-line file (jobs validate rl, traces send)
// and a 10-million-line file (jobs validate rl), and prints it.

import { spawn } from 'node:child_process';
import {
  closeSync,
  mkdtempSync,
  openSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { encodeRequest, int64, type PbSpan } from '../../src/traces/otlp/otlp.js';
import { type OtlpJsonEvent, OtlpJsonSplitter } from '../../src/traces/read/json-stream.js';
import { type DocumentEvent, readDocuments } from '../../src/validate/documents.js';
import { words } from '../helpers/cli.js';
import { useEmulator } from '../helpers/emulator.js';
import { patience } from '../helpers/patience.js';
import { aipEnv, BIN, runAip as runAipUnbounded, type Spawned } from '../helpers/spawn.js';
import { randomPieces } from '../validate/helpers.js';

const MiB = 1024 * 1024;
const LIMIT = { AIP_MAX_LINE_BYTES: '1MiB' };
const OVER_1M = 'line is larger than 1 MiB (the limit; raise it with AIP_MAX_LINE_BYTES=2MiB)';
const OVER_64M = 'line is larger than 64 MiB (the limit; raise it with AIP_MAX_LINE_BYTES=128MiB)';
const MODEL_ID = '3f0c9a1e-7b2d-4c5e-9f10-1a2b3c4d5e6f';

const dir = mkdtempSync(join(tmpdir(), 'aip-line-limits-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const t = useEmulator();
const { emu, env } = t;

/**
 * The timeout of the tests that run aip on files of many MiB (a 64 MiB line read with a 32 MB heap,
 * 30,000 lines dealt to workers): 1–3 s each on a quiet machine, ten times that or more on a busy one
 * (test/helpers/patience.ts).
 */
const BIG_FILES_MS = patience(180_000);

/**
 * runAip, its process killed (code null) if it hangs, before the test's own timeout: a process left
 * running after its test fails the file, and takes the CPU the next tests need.
 */
const runAip: typeof runAipUnbounded = (args, options = {}) =>
  runAipUnbounded(args, { timeoutMs: patience(120_000), ...options });

let files = 0;
/** A file of these lines (each given its newline). */
function file(lines: string[], ext = 'jsonl'): string {
  const path = join(dir, `f${++files}.${ext}`);
  writeFileSync(path, lines.map((l) => `${l}\n`).join(''));
  return path;
}

/**
 * A file written piece by piece, never whole in memory: each piece a string, or a number of bytes of
 * `a` (the filler of a string, a property name or a line).
 */
function bigFile(pieces: Array<string | number>, ext = 'jsonl'): string {
  const path = join(dir, `f${++files}.${ext}`);
  const fd = openSync(path, 'w');
  const filler = Buffer.alloc(MiB, 'a');
  for (const piece of pieces) {
    if (typeof piece === 'string') writeSync(fd, piece);
    else for (let left = piece; left > 0; left -= MiB) writeSync(fd, filler, 0, Math.min(MiB, left));
  }
  closeSync(fd);
  return path;
}

const text = (bytes: number) => 'a'.repeat(bytes);

const group = (content: string, reward: unknown = 1) =>
  JSON.stringify({
    trajectories: [
      {
        messages_and_choices: [
          { role: 'user', content },
          { finish_reason: 'stop', index: 0, message: { role: 'assistant', content: 'ok' } },
        ],
        reward,
      },
    ],
  });
const example = (content: string, role = 'user') =>
  JSON.stringify({
    messages: [
      { role, content },
      { role: 'assistant', content: 'ok' },
    ],
  });

const TRACE = '5b8efff798038103d269b633813fc60c';
const spanJson = (n: number, extra: Record<string, unknown> = {}) => ({
  traceId: TRACE,
  spanId: `eee19b7ec3c1b${(0x100 + n).toString(16)}`,
  name: `s${n}`,
  startTimeUnixNano: '1700000000000000000',
  endTimeUnixNano: '1700000000500000000',
  ...extra,
});
const resource = { attributes: [{ key: 'service.name', value: { stringValue: 't' } }] };
const otlpLine = (spans: unknown[]) =>
  JSON.stringify({ resourceSpans: [{ resource, scopeSpans: [{ scope: { name: 'x' }, spans }] }] });
const bigAttribute = (bytes: number) => ({
  attributes: [{ key: 'big', value: { stringValue: text(bytes) } }],
});

/** aip in-process, with these variables laid over env. */
const run = (argv: string[], extra: Record<string, string> = {}) => t.run(argv, { env: extra });

describe('the readers: what is over the limit is the same however the input is cut', () => {
  // A limit of 16 bytes (readDocuments) and 64 (the OTLP splitter), against the text cut at random
  // into chunks of 1 to 7 bytes or characters (seeded): a line, element or value is over the limit by
  // its size in bytes of UTF-8, never by where the chunks fall.
  async function documents(chunks: Array<string | Buffer>): Promise<DocumentEvent[]> {
    const events: DocumentEvent[] = [];
    const source = (async function* () {
      yield* chunks;
    })();
    for await (const event of readDocuments(source, { maxLineBytes: 16 })) events.push(event);
    return events;
  }

  it('JSON Lines and JSON arrays (readDocuments)', async () => {
    const jsonl = [
      '{"a":1}', // 1
      '{"a":"0123456789abcdef"}', // 2: over
      ' '.repeat(40), // 3: blank, whatever its length
      '  {"b":2}', // 4
      '{"c":"é€😀"}\r', // 5: 11 characters, 17 bytes: over
      '{"d":"é€"}', // 6: 14 bytes
      `${' '.repeat(20)}{}`, // 7: over
      '',
    ].join('\n');
    const reference = await documents([jsonl]);
    expect(reference).toEqual([
      { kind: 'format', format: 'jsonl' },
      { kind: 'document', text: '{"a":1}', line: 1, index: 0 },
      { kind: 'tooLarge', line: 2, index: 1 },
      { kind: 'document', text: '  {"b":2}', line: 4, index: 2 },
      { kind: 'tooLarge', line: 5, index: 3 },
      { kind: 'document', text: '{"d":"é€"}', line: 6, index: 4 },
      { kind: 'tooLarge', line: 7, index: 5 },
    ]);
    const array = '\n\n   [\n  {"a":1},\n  {"a":"0123456789abcdef"},\n  "é€😀é€€",\n  [1,\n2],  "a\\"]"\n]\n';
    const arrayReference = await documents([array]);
    expect(arrayReference).toEqual([
      { kind: 'format', format: 'array' },
      { kind: 'document', text: '{"a":1}', line: 4, index: 0 },
      { kind: 'tooLarge', line: 5, index: 1 },
      { kind: 'tooLarge', line: 6, index: 2 },
      { kind: 'document', text: '[1,\n2]', line: 7, index: 3 },
      { kind: 'document', text: '"a\\"]"\n', line: 8, index: 4 },
    ]);
    for (const [text, expected] of [
      [jsonl, reference],
      [array, arrayReference],
      [`${' '.repeat(20)}\n${jsonl}`, reference.map((e) => ('line' in e ? { ...e, line: e.line + 1 } : e))],
    ] as const) {
      for (let seed = 1; seed <= 30; seed++) {
        expect(await documents(randomPieces(text, seed, 7))).toEqual(expected);
        expect(await documents(randomPieces(Buffer.from(text), seed, 7))).toEqual(expected);
      }
    }
  });

  function otlp(chunks: string[]): unknown[] {
    const splitter = new OtlpJsonSplitter({ maxLineBytes: 64 });
    const events: OtlpJsonEvent[] = [];
    for (const chunk of chunks) events.push(...splitter.push(chunk));
    events.push(...splitter.end());
    return events.map((e) => {
      if (e.kind === 'problem') return ['problem', e.line, e.path?.join('.'), e.message];
      if ('value' in e) return [e.kind, e.path.join('.'), e.line, e.value];
      return 'path' in e ? [e.kind, e.path.join('.'), e.line] : e;
    });
  }
  const over = (what: string) =>
    `${what} is larger than 64 bytes (the limit; raise it with AIP_MAX_LINE_BYTES=128)`;

  it('OTLP/JSON, pretty and JSON Lines (the splitter)', () => {
    const long = 'x'.repeat(70);
    const pretty = [
      '{"resourceSpans": [{', // 1
      `  "resource": {"attributes": [], "k": "${long}"},`, // 2: the resource, over
      '  "scopeSpans": [{', // 3
      `    "${long}": {"a": 1},`, // 4: a property name, over
      `    "scope": {"name": "s"}, "schemaUrl": ${'1'.repeat(70)},`, // 5: a number, over
      '    "spans": [', // 6
      '      {"name": "a"},', // 7
      `      {"name": "b\\\\", "k": "\\"${'é'.repeat(30)}\\\\"},`, // 8: 30 characters of 2 bytes: over
      `      {"name": "c", "k": [[["${long}"]]]}`, // 9: over
      '    ]', // 10
      '  }]', // 11
      '}]}', // 12
      `{"resourceSpans": [{"scopeSpans": [{"spans": [{"name": "d"}, {"name": "e", "x": "${long}"}]}]}]}`, // 13
      '{"resourceSpans": []}', // 14
    ].join('\n');
    const reference = otlp([pretty]);
    expect(reference.filter((e) => Array.isArray(e) && e[0] === 'problem')).toEqual([
      ['problem', 2, 'resourceSpans.0.resource', over('the resource')],
      ['problem', 4, 'resourceSpans.0.scopeSpans.0', over('a property name')],
      ['problem', 5, 'resourceSpans.0.scopeSpans.0.schemaUrl', over('the value')],
      ['problem', 8, 'resourceSpans.0.scopeSpans.0.spans.1', over('the span')],
      ['problem', 9, 'resourceSpans.0.scopeSpans.0.spans.2', over('the span')],
      ['problem', 13, 'resourceSpans.0.scopeSpans.0.spans.1', over('the span')],
    ]);
    expect(reference.filter((e) => Array.isArray(e) && e[0] === 'span')).toEqual([
      ['span', 'resourceSpans.0.scopeSpans.0.spans.0', 7, { name: 'a' }],
      ['span', 'resourceSpans.0.scopeSpans.0.spans.0', 13, { name: 'd' }],
    ]);
    for (let seed = 1; seed <= 40; seed++) expect(otlp(randomPieces(pretty, seed, 7))).toEqual(reference);
  });

  it('OTLP/JSON, a value near the limit: read in pieces, the same as read whole', () => {
    // A span of 1.5 MiB (past the size from which a value is read in pieces), full of escapes, under a
    // limit of 2 MiB, cut into chunks of up to 64 KiB: it is read, exactly, at its line.
    const tricky = 'a\\"b\\\\c"\\\\\\"\\u00e9\\n'.repeat(64 * 1024);
    const span = {
      name: 'big',
      attributes: [{ key: 'k', value: { stringValue: tricky } }],
      x: [[{ y: '}]' }]],
    };
    const doc = `{"resourceSpans": [{"scopeSpans": [{"spans": [\n  ${JSON.stringify(span, null, 1)},\n  {"name": "after"}\n]}]}]}\n`;
    expect(doc.length).toBeGreaterThan(1.5 * MiB);
    const read = (chunks: string[]) => {
      const splitter = new OtlpJsonSplitter({ maxLineBytes: 2 * MiB });
      const events: OtlpJsonEvent[] = [];
      for (const chunk of chunks) events.push(...splitter.push(chunk));
      events.push(...splitter.end());
      return events.flatMap((e): unknown[] =>
        e.kind === 'span' ? [[e.line, e.value]] : e.kind === 'problem' ? [e] : [],
      );
    };
    const expected = [
      [2, span],
      [2 + JSON.stringify(span, null, 1).split('\n').length, { name: 'after' }],
    ];
    expect(read([doc])).toEqual(expected);
    for (let seed = 1; seed <= 5; seed++) expect(read(randomPieces(doc, seed, 64 * 1024))).toEqual(expected);
  });
});

describe('jobs validate: a line over the limit is a problem at its line, and the rest is still checked', () => {
  it('rl, JSON Lines', async () => {
    const f = file([
      group('fine'),
      group(text(MiB + 10)),
      group('fine', 'high'),
      ' '.repeat(MiB + 10), // a blank line is skipped, whatever its length
      group('fine'),
    ]);
    const r = await run(['jobs', 'validate', 'rl', f], LIMIT);
    expect(r.stdout).toBe(
      `${f}:2: ${OVER_1M}\n${f}:3: trajectories[0].reward: Input should be a valid number, not the string "high"\n`,
    );
    expect(r.stderr).toBe(`error: ${f}: 2 problems in 4 trajectory groups\n`);
    expect(r.code).toBe(2);
  });

  it('rl, one JSON array: an element over the limit, reported at the line it starts on', async () => {
    const f = file(
      ['[', `  ${group('fine')},`, `  ${group(text(MiB + 10))},`, `  ${group('fine', 'high')}`, ']'],
      'json',
    );
    const r = await run(['jobs', 'validate', 'rl', f], LIMIT);
    expect(r.stdout).toBe(
      `${f}:3: [1]: the element is larger than 1 MiB (the limit; raise it with AIP_MAX_LINE_BYTES=2MiB)\n` +
        `${f}:4: [2].trajectories[0].reward: Input should be a valid number, not the string "high"\n`,
    );
    expect(r.code).toBe(2);
  });

  it('sft, JSON Lines (CRLF line ends too)', async () => {
    const path = join(dir, 'crlf.jsonl');
    writeFileSync(path, [example('fine'), example(text(MiB + 10)), example('x', 'robot'), ''].join('\r\n'));
    const r = await run(['jobs', 'validate', 'sft', path], LIMIT);
    const lines = r.stdout.split('\n');
    expect(lines[0]).toBe(`${path}:2: ${OVER_1M}`);
    expect(lines[1]).toMatch(new RegExp(`^${path}:3: messages\\[0\\]`));
    expect(r.stderr).toBe(`error: ${path}: 2 problems in 3 training examples\n`);
    expect(r.code).toBe(2);
  });

  it('a bad AIP_MAX_LINE_BYTES is a usage error, before anything is read', async () => {
    const f = file([group('fine')]);
    for (const value of ['lots', '0', '1G']) {
      const r = await run(['jobs', 'validate', 'rl', f], { AIP_MAX_LINE_BYTES: value });
      expect(r.code, value).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).toMatch(/^error: AIP_MAX_LINE_BYTES: expected a size such as 64M/);
    }
    expect((await run(['jobs', 'validate', 'rl', f], { AIP_MAX_LINE_BYTES: '64k' })).code).toBe(0);
  });
});

describe('the commands that send: a line over the limit, exit 2, and nothing is sent', {
  timeout: BIG_FILES_MS,
}, () => {
  it('jobs create rl and models log', async () => {
    const f = file([group('fine'), group(text(MiB + 10))]);
    for (const argv of [
      ['jobs', 'create', 'rl', '--model', MODEL_ID, '--file', f],
      ['models', 'log', MODEL_ID, '--split', 'train', '--file', f],
    ]) {
      const r = await run(argv, LIMIT);
      expect(r.stderr, argv[0]).toBe(
        `${f}:2: ${OVER_1M}\nerror: ${f}: 1 problem in 2 trajectory groups; nothing was sent\n`,
      );
      expect(r.code).toBe(2);
    }
    expect(await emu.requests({ method: 'POST' })).toEqual([]);
  });

  it('jobs create sft --file, at the default limit (64 MiB)', async () => {
    const f = bigFile([
      `${example('fine')}\n{"messages":[{"role":"user","content":"`,
      64 * MiB,
      '"},{"role":"assistant","content":"ok"}]}\n',
    ]);
    const r = await run(
      words`jobs create sft --model ${MODEL_ID} --data-url wandb-artifact:///local/demo/train:v0 --file ${f}`,
    );
    expect(r.stderr).toBe(
      `${f}:2: ${OVER_64M}\nerror: ${f}: 1 problem in 2 training examples; nothing was sent\n`,
    );
    expect(r.code).toBe(2);
    expect(await emu.requests({ method: 'POST' })).toEqual([]);
  });

  it('chat --continue, a transcript at the default limit (64 MiB)', async () => {
    const f = bigFile([
      '{"role":"user","content":"earlier"}\n{"role":"assistant","content":"',
      64 * MiB,
      '"}\n{"role":"user","content":"later"}\n',
    ]);
    const r = await run(['chat', '-m', 'openai/gpt-oss-20b', '--continue', f, 'and now?']);
    expect(r.stderr).toBe(
      `${f}:2: ${OVER_64M}\nerror: ${f}: 1 problem in the transcript; nothing was sent\n`,
    );
    expect(r.code).toBe(2);
    expect(await emu.requests({ method: 'POST' })).toEqual([]);
    expect(statSync(f).size).toBeGreaterThan(64 * MiB); // left as it was
  });

  const SPAN_OVER = 'the span is larger than 1 MiB (the limit; raise it with AIP_MAX_LINE_BYTES=2MiB)';

  it('traces send, JSON Lines: a span over the limit, and a line over it that is not JSON', async () => {
    const f = file([
      otlpLine([spanJson(1)]),
      otlpLine([spanJson(2), spanJson(3, bigAttribute(MiB + 10))]),
      `not json ${text(MiB + 10)}`,
      otlpLine([spanJson(4, { traceId: 'zz' })]),
      otlpLine([spanJson(5)]),
    ]);
    const r = await run(['traces', 'send', f], LIMIT);
    expect(r.stderr).toBe(
      [
        `${f}:2: resourceSpans[0].scopeSpans[0].spans[1]: ${SPAN_OVER}`,
        `${f}:3: expected a JSON object (an OTLP ExportTraceServiceRequest)`,
        `${f}:4: resourceSpans[0].scopeSpans[0].spans[0].traceId: expected 32 hex digits, not "zz"`,
        `error: ${f}: 3 problems in 5 spans; nothing was sent`,
        '',
      ].join('\n'),
    );
    expect(r.code).toBe(2);
    expect(await emu.requests({ method: 'POST' })).toEqual([]);
  });

  it('traces send, one pretty document: a span, and a property name, over the limit', async () => {
    const f = file(
      [
        '{', // 1
        '  "resourceSpans": [{', // 2
        `    "resource": ${JSON.stringify(resource)},`, // 3
        '    "scopeSpans": [{', // 4
        `      "${text(MiB + 10)}": true,`, // 5: a property name over the limit
        '      "scope": {"name": "x"},', // 6
        '      "spans": [', // 7
        `        ${JSON.stringify(spanJson(1))},`, // 8
        `        ${JSON.stringify(spanJson(2)).slice(0, -1)},`, // 9: a span over the limit…
        `          "attributes": [{"key": "big", "value": {"stringValue": "${text(MiB + 10)}"}}]},`, // 10
        `        ${JSON.stringify(spanJson(3, { traceId: 'zz' }))}`, // 11
        '      ]', // 12
        '    }]', // 13
        '  }]', // 14
        '}', // 15
      ],
      'json',
    );
    const r = await run(['traces', 'send', f], LIMIT);
    expect(r.stderr).toBe(
      [
        `${f}:5: resourceSpans[0].scopeSpans[0]: a property name is larger than 1 MiB (the limit; raise it with AIP_MAX_LINE_BYTES=2MiB)`,
        `${f}:9: resourceSpans[0].scopeSpans[0].spans[1]: ${SPAN_OVER}`,
        `${f}:11: resourceSpans[0].scopeSpans[0].spans[2].traceId: expected 32 hex digits, not "zz"`,
        `error: ${f}: 3 problems in 3 spans; nothing was sent`,
        '',
      ].join('\n'),
    );
    expect(r.code).toBe(2);
    expect(await emu.requests({ method: 'POST' })).toEqual([]);
  });

  it('traces send, protobuf: a span over the limit', async () => {
    const span = (n: number, extra: Partial<PbSpan> = {}): PbSpan => ({
      traceId: Buffer.from(TRACE, 'hex'),
      spanId: Buffer.from(`eee19b7ec3c1b${(0x100 + n).toString(16)}`, 'hex'),
      name: `s${n}`,
      startTimeUnixNano: int64('1700000000000000000'),
      endTimeUnixNano: int64('1700000000500000000'),
      ...extra,
    });
    const f = join(dir, 'spans.pb');
    writeFileSync(
      f,
      encodeRequest({
        resourceSpans: [
          {
            resource: { attributes: [{ key: 'service.name', value: { stringValue: 't' } }] },
            scopeSpans: [
              {
                spans: [
                  span(1),
                  span(2, { attributes: [{ key: 'big', value: { stringValue: text(MiB + 10) } }] }),
                  span(3, { traceId: Buffer.from('abc') }),
                ],
              },
            ],
          },
        ],
      }),
    );
    const r = await run(['traces', 'send', f], LIMIT);
    const lines = r.stderr.split('\n');
    expect(lines[0]).toMatch(
      new RegExp(
        `^${f}: resourceSpans\\[0\\]\\.scopeSpans\\[0\\]\\.spans\\[1\\]: ${SPAN_OVER.replace(/[()]/g, '\\$&')} \\(byte \\d+\\)$`,
      ),
    );
    expect(lines.slice(1)).toEqual([
      `${f}: resourceSpans[0].scopeSpans[0].spans[2].traceId: expected 16 bytes, not 3`,
      `error: ${f}: 2 problems in 3 spans; nothing was sent`,
      '',
    ]);
    expect(r.code).toBe(2);
    expect(await emu.requests({ method: 'POST' })).toEqual([]);
  });

  it('traces send, a large JSON Lines file read on worker threads: the long line is read here, bounded', async () => {
    // Over 4 MB, its first line whole: the built aip deals it to workers, which must not take a line
    // over the limit (they hold their pieces whole).
    const small = otlpLine([spanJson(1)]);
    const lines = Array.from({ length: 30_000 }, () => small);
    lines[20_000] = otlpLine([spanJson(2, bigAttribute(2 * MiB))]);
    lines[25_000] = otlpLine([spanJson(3, { traceId: 'zz' })]);
    const f = file(lines);
    expect(statSync(f).size).toBeGreaterThan(4 * MiB);
    const r = await runAip(['traces', 'send', f, '--workers', '2'], { env: { ...env, ...LIMIT } });
    expect(r.stderr).toBe(
      [
        `${f}:20001: resourceSpans[0].scopeSpans[0].spans[0]: ${SPAN_OVER}`,
        `${f}:25001: resourceSpans[0].scopeSpans[0].spans[0].traceId: expected 32 hex digits, not "zz"`,
        `error: ${f}: 2 problems in 30,000 spans; nothing was sent`,
        '',
      ].join('\n'),
    );
    expect(r.code).toBe(2);
    expect(await emu.requests({ method: 'POST' })).toEqual([]);
  });
});

describe('memory: a line over the limit is never held (a 64 MiB line, a 1 MiB limit, a 32 MB heap)', {
  timeout: BIG_FILES_MS,
}, () => {
  // V8's heap capped far below the line: a reader that held the line (as text, or parsed) would die
  // of it ("JavaScript heap out of memory", SIGABRT). The bytes aip reads are Buffers, outside the
  // heap, so the cap is on what it keeps of them: a line's text, and what is parsed from it.
  const small = { NODE_OPTIONS: '--max-old-space-size=32', ...LIMIT, AIP_CONFIG_DIR: dir };
  const LINE = 64 * MiB;

  it('jobs validate rl', async () => {
    const f = bigFile([
      `${group('fine')}\n{"trajectories":[{"messages_and_choices":[{"role":"user","content":"`,
      LINE,
      `"}],"reward":1}]}\n${group('fine', 'high')}\n`,
    ]);
    const r = await runAip(['jobs', 'validate', 'rl', f], { env: small });
    expect(r.signal).toBeNull();
    expect(r.stdout).toBe(
      `${f}:2: ${OVER_1M}\n${f}:3: trajectories[0].reward: Input should be a valid number, not the string "high"\n`,
    );
    expect(r.code).toBe(2);
  });

  it('jobs validate sft', async () => {
    const f = bigFile([
      `${example('fine')}\n{"messages":[{"role":"user","content":"`,
      LINE,
      `"},{"role":"assistant","content":"ok"}]}\n${example('x', 'robot')}\n`,
    ]);
    const r = await runAip(['jobs', 'validate', 'sft', f], { env: small });
    expect(r.signal).toBeNull();
    expect(r.stdout.split('\n')[0]).toBe(`${f}:2: ${OVER_1M}`);
    expect(r.stdout.split('\n')[1]).toMatch(new RegExp(`^${f}:3: messages\\[0\\]`));
    expect(r.code).toBe(2);
  });

  it('traces send --dry-run, JSON Lines: a 64 MiB span, and a 64 MiB line that is not JSON', async () => {
    // The second line's span has an attribute whose string is LINE bytes long (where the "@@" is).
    const [before, after] = otlpLine([
      spanJson(2, { attributes: [{ key: 'big', value: { stringValue: '@@' } }] }),
    ]).split('@@') as [string, string];
    const path = bigFile([
      `${otlpLine([spanJson(1)])}\n${before}`,
      LINE,
      `${after}\nnot json `,
      LINE,
      `\n${otlpLine([spanJson(3, { traceId: 'zz' })])}\n`,
    ]);
    const r = await runAip(['traces', 'send', '--dry-run', '--project', 'local/demo', path], { env: small });
    expect(r.signal).toBeNull();
    expect(r.stderr).toBe(
      [
        `${path}:2: resourceSpans[0].scopeSpans[0].spans[0]: the span is larger than 1 MiB (the limit; raise it with AIP_MAX_LINE_BYTES=2MiB)`,
        `${path}:3: expected a JSON object (an OTLP ExportTraceServiceRequest)`,
        `${path}:4: resourceSpans[0].scopeSpans[0].spans[0].traceId: expected 32 hex digits, not "zz"`,
        `error: ${path}: 3 problems in 3 spans; nothing was sent`,
        '',
      ].join('\n'),
    );
    expect(r.code).toBe(2);
  });

  it('traces send --dry-run, one pretty document: a 64 MiB string, and a 64 MiB property name', async () => {
    const f = bigFile(
      [
        `{\n  "resourceSpans": [{\n    "resource": ${JSON.stringify(resource)},\n    "scopeSpans": [{\n      "`, // 1-5
        LINE,
        '": 1,\n      "spans": [\n', // 5-6
        `        ${JSON.stringify(spanJson(1)).slice(0, -1)}, "attributes": [{"key": "big", "value":\n          {"stringValue": "`, // 7-8
        LINE,
        `"}}]},\n        ${JSON.stringify(spanJson(2, { traceId: 'zz' }))}\n      ]\n    }]\n  }]\n}\n`, // 8-13
      ],
      'json',
    );
    const r = await runAip(['traces', 'send', '--dry-run', '--project', 'local/demo', f], { env: small });
    expect(r.signal).toBeNull();
    expect(r.stderr).toBe(
      [
        `${f}:5: resourceSpans[0].scopeSpans[0]: a property name is larger than 1 MiB (the limit; raise it with AIP_MAX_LINE_BYTES=2MiB)`,
        `${f}:7: resourceSpans[0].scopeSpans[0].spans[0]: the span is larger than 1 MiB (the limit; raise it with AIP_MAX_LINE_BYTES=2MiB)`,
        `${f}:9: resourceSpans[0].scopeSpans[0].spans[1].traceId: expected 32 hex digits, not "zz"`,
        `error: ${f}: 3 problems in 2 spans; nothing was sent`,
        '',
      ].join('\n'),
    );
    expect(r.code).toBe(2);
  });
});

// Slow (minutes, 2 GiB on disk): AIP_TEST_BIG=1. Peak memory of the whole process (every thread), as
// bench/rss.cjs reports it, at the default limit of 64 MiB.
describe.skipIf(!process.env.AIP_TEST_BIG)('peak memory at the default limit (AIP_TEST_BIG=1)', () => {
  const GiB = 1024 * MiB;
  const RSS = join(import.meta.dirname, '..', '..', 'bench', 'rss.cjs');

  async function peak(
    args: string[],
  ): Promise<{ mb: number; seconds: number; code: number | null; stderr: string }> {
    const rssFile = join(dir, 'rss.json');
    const started = performance.now();
    const r = await new Promise<Spawned>((resolve, reject) => {
      const child = spawn(process.execPath, ['--require', RSS, BIN, ...args], {
        env: aipEnv({ AIP_BENCH_RSS_FILE: rssFile, AIP_CONFIG_DIR: dir, AIP_PROJECT: 'local/demo' }),
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      let stderr = '';
      child.stderr.on('data', (d) => {
        stderr = (stderr + d).slice(-2000);
      });
      child.on('error', reject);
      child.on('close', (code, signal) => resolve({ code, signal, stdout: '', stderr }));
    });
    const seconds = (performance.now() - started) / 1000;
    const { rss } = JSON.parse(readFileSync(rssFile, 'utf8')) as { rss: number };
    return {
      mb: Math.round(rss / MiB),
      seconds: Math.round(seconds * 10) / 10,
      code: r.code,
      stderr: r.stderr,
    };
  }

  const cases: Array<[string, () => string, string[], number]> = [
    [
      '2 GiB single line',
      () =>
        bigFile([
          '{"trajectories":[{"messages_and_choices":[{"role":"user","content":"',
          2 * GiB,
          '"}],"reward":1}]}\n',
        ]),
      ['jobs', 'validate', 'rl'],
      2,
    ],
    [
      '2 GiB single line (one span)',
      () => {
        const [before, after] = otlpLine([
          spanJson(1, { attributes: [{ key: 'big', value: { stringValue: '@@' } }] }),
        ]).split('@@') as [string, string];
        return bigFile([before, 2 * GiB, `${after}\n`]);
      },
      ['traces', 'send', '--dry-run'],
      2,
    ],
    [
      '10,000,000 lines',
      () => {
        const path = join(dir, 'many.jsonl');
        const fd = openSync(path, 'w');
        const block = `${group('hi')}\n`.repeat(10_000);
        for (let i = 0; i < 1000; i++) writeSync(fd, block);
        closeSync(fd);
        return path;
      },
      ['jobs', 'validate', 'rl'],
      0,
    ],
  ];
  for (const [name, make, command, code] of cases) {
    it(
      `${command.join(' ')}: ${name}`,
      async () => {
        const f = make();
        try {
          const result = await peak([...command, f]);
          console.log(
            `${command.join(' ')}, ${name}: peak ${result.mb} MB, ${result.seconds} s, exit ${result.code}`,
          );
          expect(result.code, result.stderr).toBe(code);
          expect(result.mb).toBeLessThan(400);
        } finally {
          rmSync(f, { force: true });
        }
      },
      30 * 60_000,
    );
  }
});
