// Hostile and malformed input, generated (fast-check): trajectory, SFT and OTLP files of every kind
// of wrongness, absurd option values, and ids and names full of path characters. None may crash (an
// "unexpected failure"), hang, or send a request it should not; ids never change the shape of a URL.
// Each property runs at least 1,000 cases, against a transport that records requests instead of
// sending them.

import { EventEmitter } from 'node:events';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { Transport, TransportRequest } from '../../src/api/transport.js';
import { main } from '../../src/main.js';
import { fakeIO } from '../helpers/io.js';

const RUNS = 1000;
const dir = mkdtempSync(join(tmpdir(), 'aip-hostile-'));
const EXAMPLES = join(import.meta.dirname, '..', '..', 'examples');
const GROUP_LINES = readFileSync(join(EXAMPLES, 'groups.jsonl'), 'utf8').trimEnd().split('\n');
const SFT_LINES = readFileSync(join(EXAMPLES, 'train.jsonl'), 'utf8').trimEnd().split('\n');
const SPANS = readFileSync(join(import.meta.dirname, '..', 'fixtures', 'spans.json'), 'utf8');
const UUID = '3f0c9a1e-7b2d-4c5e-9f10-1a2b3c4d5e6f';

/** Answers every request with a 404 and keeps it, so that a test can see what would have been sent. */
function spy(): { transport: Transport; requests: TransportRequest[] } {
  const requests: TransportRequest[] = [];
  const transport: Transport = async (request) => {
    requests.push(request);
    return {
      status: 404,
      statusText: 'Not Found',
      headers: { 'content-type': 'application/json' },
      body: Buffer.from('{"detail": "Not Found"}'),
      elapsedMs: 0,
    };
  };
  return { transport, requests };
}

async function run(argv: string[], stdin?: string) {
  const { transport, requests } = spy();
  const env = {
    AIP_CONFIG_DIR: dir,
    AIP_API_KEY: 'hostile-key-0123456789',
    AIP_BASE_URL: 'https://training.example/v1',
    AIP_INFERENCE_URL: 'https://inference.example/v1',
    AIP_TRACE_URL: 'https://trace.example',
    AIP_PROJECT: 'team/project',
  };
  const { io, stdout, stderr } = fakeIO({ env, stdin });
  const code = await main(argv, {
    env,
    io,
    transport,
    sleep: async () => undefined,
    random: () => 0.5,
    signals: new EventEmitter(),
  });
  return { code, stdout: stdout.text, stderr: stderr.text, requests };
}

/** Exit codes seen per property: a property whose cases all end the same way tests little. */
const seen = new Map<string, Set<number>>();

/** Nothing unexpected: a known exit code, and no crash report. */
function expectHandled(
  r: Awaited<ReturnType<typeof run>>,
  codes: number[],
  property = expect.getState().currentTestName ?? '',
): void {
  if (!seen.has(property)) seen.set(property, new Set());
  seen.get(property)!.add(r.requests.length > 0 ? 100 + r.code : r.code);
  expect(r.stderr).not.toMatch(/unexpected failure|\n\s+at .+:\d+/);
  expect(codes, `exit ${r.code}: ${r.stderr.slice(0, 300)}`).toContain(r.code);
  if (r.code === 2) expect(r.requests).toHaveLength(0);
}

let fileCount = 0;
const written: string[] = [];
/** A file for one case; removed after the test (some are megabytes). */
function file(content: string | Uint8Array, ext: string): string {
  const path = join(dir, `input-${fileCount++}.${ext}`);
  writeFileSync(path, content);
  written.push(path);
  return path;
}
afterEach(() => {
  for (const path of written.splice(0)) rmSync(path, { force: true });
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A JSON value with an arbitrary path inside it replaced by another value. */
function mutate(value: unknown, choices: number[], replacement: unknown): unknown {
  if (choices.length === 0 || typeof value !== 'object' || value === null) return replacement;
  const [choice, ...rest] = choices;
  if (Array.isArray(value)) {
    if (value.length === 0) return replacement;
    const copy = [...value];
    const i = choice! % copy.length;
    copy[i] = mutate(copy[i], rest, replacement);
    return copy;
  }
  const keys = Object.keys(value);
  if (keys.length === 0) return replacement;
  const key = keys[choice! % keys.length]!;
  return { ...value, [key]: mutate((value as Record<string, unknown>)[key], rest, replacement) };
}

/** Files that are wrong in every way a file can be, built from lines of a valid one. */
function hostileFile(validLines: string[]): fc.Arbitrary<string | Uint8Array> {
  const line = fc.constantFrom(...validLines);
  const mutated = fc
    .tuple(line, fc.array(fc.nat(), { maxLength: 8 }), fc.jsonValue({ maxDepth: 3 }))
    .map(([l, path, value]) => JSON.stringify(mutate(JSON.parse(l), path, value)));
  const deep = fc.integer({ min: 1, max: 20_000 }).map((n) => `${'['.repeat(n)}${']'.repeat(n)}`);
  const deepObject = fc.integer({ min: 1, max: 5_000 }).map((n) => `${'{"a":'.repeat(n)}1${'}'.repeat(n)}`);
  const someLines = fc.array(fc.oneof(line, mutated, fc.json(), fc.string(), deep, deepObject), {
    minLength: 0,
    maxLength: 6,
  });
  const weighted = <T>(weight: number, arbitrary: fc.Arbitrary<T>) => ({ weight, arbitrary });
  return fc.oneof(
    weighted(
      20,
      fc
        .tuple(someLines, fc.constantFrom('\n', '\r\n'), fc.boolean(), fc.boolean())
        .map(
          ([lines, eol, bom, finalEol]) => `${bom ? '\uFEFF' : ''}${lines.join(eol)}${finalEol ? eol : ''}`,
        ),
    ),
    weighted(8, fc.uint8Array({ maxLength: 400 })),
    // Invalid UTF-8 inside an otherwise valid line.
    weighted(
      8,
      fc.tuple(line, fc.nat()).map(([l, at]) => {
        const bytes = Buffer.from(l);
        const i = at % bytes.length;
        return Buffer.concat([bytes.subarray(0, i), Buffer.from([0xff, 0xc3, 0x28]), bytes.subarray(i)]);
      }),
    ),
    weighted(
      8,
      fc.json().map((j) => `[${j}]`),
    ),
    weighted(2, fc.constant('')),
    // Megabyte lines: rarer than the rest (a case in ~50), as each is a file of megabytes.
    weighted(
      1,
      fc.integer({ min: 1, max: 3 }).map((mb) => `{"trajectories": "${'x'.repeat(mb * 1024 * 1024)}"}\n`),
    ),
  );
}

/** The outcomes a property produced (100 + code: it sent requests). */
function outcomes(): number[] {
  return [...(seen.get(expect.getState().currentTestName ?? '') ?? [])].sort((a, b) => a - b);
}

describe('hostile files', () => {
  it(`trajectory groups: ${RUNS} files checked, none crashes`, { timeout: 300_000 }, async () => {
    await fc.assert(
      fc.asyncProperty(hostileFile(GROUP_LINES), async (content) => {
        const r = await run(['jobs', 'validate', 'rl', file(content, 'jsonl')]);
        expectHandled(r, [0, 2]);
        expect(r.requests).toHaveLength(0);
      }),
      { numRuns: RUNS },
    );
    // Both valid and invalid files were generated.
    expect(outcomes()).toEqual([0, 2]);
  });

  it(`trajectory groups: creating a job from ${RUNS / 5} bad files sends nothing`, {
    timeout: 300_000,
  }, async () => {
    await fc.assert(
      fc.asyncProperty(hostileFile(GROUP_LINES), async (content) => {
        const path = file(content, 'jsonl');
        const valid = (await run(['jobs', 'validate', 'rl', path])).code === 0;
        const r = await run(['jobs', 'create', 'rl', '--model', UUID, '--file', path]);
        expectHandled(r, [2, 3]);
        // A file the validator refuses is refused by create too, before any request.
        if (!valid) expect(r.requests).toHaveLength(0);
        else expect(r.requests.map((q) => q.method)).toEqual(['POST']);
      }),
      { numRuns: RUNS / 5 },
    );
  });

  it(`SFT examples: ${RUNS} files checked, none crashes`, { timeout: 300_000 }, async () => {
    await fc.assert(
      fc.asyncProperty(hostileFile(SFT_LINES), async (content) => {
        const r = await run(['jobs', 'validate', 'sft', file(content, 'jsonl')]);
        expectHandled(r, [0, 2]);
        expect(r.requests).toHaveLength(0);
      }),
      { numRuns: RUNS },
    );
    expect(outcomes()).toEqual([0, 2]);
  });

  it(`OTLP spans: ${RUNS} files, none crashes, and a bad one sends nothing`, {
    timeout: 300_000,
  }, async () => {
    const lines = [JSON.stringify(JSON.parse(SPANS))];
    await fc.assert(
      fc.asyncProperty(hostileFile(lines), async (content) => {
        const path = file(content, 'json');
        const valid = (await run(['traces', 'send', '--dry-run', path])).code === 0;
        const r = await run(['traces', 'send', path]);
        // 3: a valid file, sent, and the spy's 404.
        expectHandled(r, [2, 3]);
        if (!valid) expect(r.requests).toHaveLength(0);
        else expect(r.requests.length).toBeGreaterThan(0);
      }),
      { numRuns: RUNS },
    );
    expect(outcomes()).toEqual([2, 103]);
  });
});

describe('hostile arguments', () => {
  const value = fc.oneof(
    fc.integer({ min: -1e12, max: 1e12 }).map(String),
    fc.double().map(String),
    fc.string({ maxLength: 20 }),
    fc.constantFrom(
      '-1',
      '0',
      '1e309',
      'NaN',
      'Infinity',
      '',
      ' ',
      '9'.repeat(40),
      '0x10',
      '1_000',
      '0.000001',
      '-V',
      '--version',
      '-h',
      '--help',
    ),
  );
  const whole = (min: number, max: number) => (v: string) =>
    /^\d+$/.test(v) && Number(v) >= min && Number(v) <= max;
  const seconds = (max: number) => (v: string) =>
    /^\d+(\.\d+)?$/.test(v.trim()) && Number(v) > 0 && Number(v) <= max;
  const oneOf =
    (...values: string[]) =>
    (v: string) =>
      values.includes(v);
  const finite = (v: string) => v.trim() !== '' && Number.isFinite(Number(v));
  /** The command line for a value, and (where the rule is simple) whether the value is valid. */
  const commands: Array<[string, (v: string) => string[], ((v: string) => boolean)?]> = [
    ['checkpoints list --limit', (v) => ['checkpoints', 'list', UUID, '--limit', v], whole(1, 100)],
    ['checkpoints list --order', (v) => ['checkpoints', 'list', UUID, '--order', v], oneOf('asc', 'desc')],
    ['events --limit', (v) => ['events', UUID, '--limit', v], whole(1, 100)],
    ['events --interval', (v) => ['events', UUID, '--follow', '--interval', v], seconds(3600)],
    ['--timeout', (v) => ['--timeout', v, 'jobs', 'get', UUID], seconds(7 * 24 * 3600)],
    [
      '--max-retries',
      (v) => ['--max-retries', v, 'jobs', 'get', UUID],
      (v) => /^\d+$/.test(v.trim()) && Number(v) <= 10,
    ],
    // chat's own values are checked before the SDK is loaded; a valid one would reach the SDK, which
    // sends past this spy: so chat stops at --continue to a path that cannot be written (exit 2 too).
    [
      'chat --temperature',
      (v) => ['chat', '-m', 'm', '--temperature', v, '--continue', '/nonexistent/t.jsonl', 'hi'],
      finite,
    ],
    [
      'chat --max-tokens',
      (v) => ['chat', '-m', 'm', '--max-tokens', v, '--continue', '/nonexistent/t.jsonl', 'hi'],
      whole(1, Number.MAX_SAFE_INTEGER),
    ],
    [
      'chat --api',
      (v) => ['chat', '-m', 'm', '--api', v, '--continue', '/nonexistent/t.jsonl', 'hi'],
      oneOf('inference', 'training'),
    ],
    [
      'traces send --batch-spans',
      (v) => ['traces', 'send', '--dry-run', '--batch-spans', v, '-'],
      whole(1, 100_000),
    ],
    ['traces send --batch-bytes', (v) => ['traces', 'send', '--dry-run', '--batch-bytes', v, '-']],
    ['traces span --start', (v) => ['traces', 'span', '--name', 'x', '--start', v]],
    [
      'traces span --kind',
      (v) => ['traces', 'span', '--name', 'x', '--kind', v],
      oneOf('internal', 'server', 'client', 'producer', 'consumer'),
    ],
    [
      'jobs create rl --learning-rate',
      (v) => [
        'jobs',
        'create',
        'rl',
        '--model',
        UUID,
        '--file',
        join(EXAMPLES, 'groups.jsonl'),
        '--learning-rate',
        v,
        '--dry-run',
      ],
    ],
    ['config set output', (v) => ['config', 'set', 'output', v]],
  ];
  it(`${RUNS} option values: an invalid one is a usage error before anything is sent`, {
    timeout: 300_000,
  }, async () => {
    let judged = 0;
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...commands), value, async ([, argv, valid], v) => {
        const r = await run(argv(v), SPANS);
        // 0/1/3/7: values that are valid, and the spy's 404 (or an event page it cannot give).
        expectHandled(r, [0, 1, 2, 3, 7]);
        // A value that looks like a flag (-V, --help) is the option's value all the same: refused.
        if (valid && !valid(v)) {
          judged++;
          expect(r.code, `${argv(v).join(' ')}: ${r.stderr}`).toBe(2);
          expect(r.requests).toHaveLength(0);
        }
      }),
      { numRuns: RUNS },
    );
    expect(judged).toBeGreaterThan(RUNS / 4);
    // Values refused before sending, and values taken and sent.
    expect(outcomes()).toContain(2);
    expect(outcomes().some((code) => code > 100)).toBe(true);
  });
});

describe('URL paths', () => {
  it(`${RUNS} arbitrary values in a path segment stay one segment, exactly`, async () => {
    const { joinUrl, p } = await import('../../src/api/url.js');
    fc.assert(
      fc.property(fc.string({ maxLength: 60 }), fc.string({ maxLength: 20 }), (id, after) => {
        fc.pre(id !== '' && id !== '.' && id !== '..');
        const url = joinUrl('https://training.example/v1', p`/preview/models/${id}/checkpoints`, { after });
        // The raw URL, before any parser could fold it: five segments, the id the fourth.
        const raw = url.slice('https://training.example'.length).split('?')[0]!;
        const segments = raw.split('/');
        expect(segments).toHaveLength(6);
        expect(decodeURIComponent(segments[4]!)).toBe(id);
        expect(new URL(url).pathname).toBe(raw);
        expect(new URL(url).searchParams.get('after')).toBe(after);
      }),
      { numRuns: RUNS },
    );
    for (const bad of ['', '.', '..']) expect(() => p`/preview/models/${bad}`).toThrow(/invalid identifier/);
  });
});

describe('ids and names with path characters', () => {
  const nasty = fc.oneof(
    fc.string({ maxLength: 40 }),
    fc.constantFrom(
      '../x',
      '..%2F..',
      '%2F',
      'a/b',
      'a b',
      '?q=1',
      '#frag',
      '..',
      '.',
      '\\..\\',
      '%00',
      'x\ny',
    ),
    fc
      .tuple(fc.constantFrom('../', '%2F', ' ', '?', '#', '%', '/'), fc.string({ maxLength: 10 }))
      .map(([a, b]) => a + b),
    fc.uuid().map((u) => `${u}/../../x`),
  );
  /** Every path this test may see, with UUIDs where ids go. */
  const ALLOWED = [
    /^\/v1\/preview\/models$/,
    /^\/v1\/preview\/models\/[0-9a-f-]{36}(\/checkpoints|\/log)?$/,
    /^\/v1\/preview\/training-jobs\/[0-9a-f-]{36}(\/events)?$/,
    /^\/v1\/chat\/completions$/,
    /^\/agents\/otel\/v1\/traces$/,
  ];
  it(`${RUNS} hostile ids and names never change a URL's path`, { timeout: 300_000 }, async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom<(s: string) => string[]>(
          (s) => ['checkpoints', 'list', s],
          (s) => ['checkpoints', 'list', UUID, '--after', s],
          (s) => ['models', 'delete', s, '--yes'],
          (s) => ['events', s],
          (s) => ['events', UUID, '--after', s],
          (s) => ['jobs', 'get', s],
          (s) => ['models', 'create', '--name', s, '--base-model', 'OpenPipe/Qwen3-14B-Instruct'],
          (s) => ['traces', 'span', '--name', s],
        ),
        nasty,
        async (argv, s) => {
          const r = await run(argv(s));
          expectHandled(r, [1, 2, 3]);
          for (const request of r.requests) {
            const url = new URL(request.url);
            const path = url.pathname.replace(/^\/(training|inference)/, '');
            expect(
              ALLOWED.some((re) => re.test(url.pathname) || re.test(path)),
              url.pathname,
            ).toBe(true);
            expect(url.host).toMatch(/^(training|inference|trace)\.example$/);
            const after = url.searchParams.get('after');
            if (argv(s).includes('--after') && after !== null) expect(after).toBe(s);
          }
        },
      ),
      { numRuns: RUNS },
    );
    expect(outcomes()).toContain(2);
    expect(outcomes().some((code) => code > 100)).toBe(true);
  });
});
