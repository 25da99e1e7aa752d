// Hostile and malformed input, generated (fast-check): what the hostile-*.test.ts files share. Each
// property is a file of its own, so that they run side by side; each runs at least RUNS (1,000)
// cases, against a transport that records requests instead of sending them. Each test file calls
// useHostileInput() for its hooks: this module is imported once per worker (vitest's isolate: false),
// so hooks registered at import would belong to the first file that imported it only.

import { EventEmitter } from 'node:events';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import type { Transport, TransportRequest } from '../../src/api/transport.js';
import { main } from '../../src/main.js';
import { fakeIO } from '../helpers/io.js';
import { tempDir } from '../helpers/temp.js';

export const RUNS = 1000;
/** The current test file's directory (useHostileInput). */
let dir = '';
export const EXAMPLES = join(import.meta.dirname, '..', '..', 'examples');
export const GROUP_LINES = readFileSync(join(EXAMPLES, 'groups.jsonl'), 'utf8').trimEnd().split('\n');
export const SFT_LINES = readFileSync(join(EXAMPLES, 'train.jsonl'), 'utf8').trimEnd().split('\n');
export const SPANS = readFileSync(join(import.meta.dirname, '..', 'fixtures', 'spans.json'), 'utf8');
export const UUID = '3f0c9a1e-7b2d-4c5e-9f10-1a2b3c4d5e6f';

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

/** The current test file's directory; a file that did not call useHostileInput() has none. */
function caseDir(): string {
  if (!dir) throw new Error('a hostile-*.test.ts file calls useHostileInput() first');
  return dir;
}

export async function run(argv: string[], stdin?: string) {
  const { transport, requests } = spy();
  const env = {
    AIP_CONFIG_DIR: caseDir(),
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
export function expectHandled(
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
export function file(content: string | Uint8Array, ext: string): string {
  const path = join(caseDir(), `input-${fileCount++}.${ext}`);
  writeFileSync(path, content);
  written.push(path);
  return path;
}

/** The test file's hooks: a directory for its cases (removed after the file, with tempDir's), and the files a case wrote removed after each test (some are megabytes). */
export function useHostileInput(): void {
  beforeAll(() => {
    dir = tempDir('aip-hostile-');
    seen.clear();
  });
  afterAll(() => {
    dir = '';
  });
  afterEach(() => {
    for (const path of written.splice(0)) rmSync(path, { force: true });
  });
}

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
export function hostileFile(validLines: string[]): fc.Arbitrary<string | Uint8Array> {
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
export function outcomes(): number[] {
  return [...(seen.get(expect.getState().currentTestName ?? '') ?? [])].sort((a, b) => a - b);
}
