// Hostile arguments (see hostile-input.ts): absurd option values are usage errors before anything is
// sent; any value in a URL path stays one segment; ids and names with path characters never change
// a URL's path.

import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { patience } from '../helpers/patience.js';
import {
  EXAMPLES,
  expectHandled,
  outcomes,
  RUNS,
  run,
  SPANS,
  UUID,
  useHostileInput,
} from './hostile-input.js';

useHostileInput();

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
    timeout: patience(900_000),
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
  it(`${RUNS} hostile ids and names never change a URL's path`, { timeout: patience(900_000) }, async () => {
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
