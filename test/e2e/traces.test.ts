// aip traces as a real process: a large JSON Lines file read on worker threads (only the built CLI
// has the worker script), and exec with the command on the real terminal streams.

import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useEmulator } from '../helpers/emulator.js';
import { patience } from '../helpers/patience.js';
import { aipEnv, BIN, collect, runAip as runAipUnbounded } from '../helpers/spawn.js';

const t = useEmulator();
const { emu, env } = t;

/**
 * runAip, its process killed (code null) if it hangs, before the test's own timeout: a process left
 * running after its test would go on sending spans into the next test's emulator.
 */
const runAip: typeof runAipUnbounded = (args, options = {}) =>
  runAipUnbounded(args, { timeoutMs: patience(120_000), ...options });

/** JSON text with sorted keys: equal values, equal text. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : 1)))
      : v,
  );
}

/** Every span of a generated JSON Lines file, with its resource and scope, as sorted canonical text. */
function spansOf(file: string): string[] {
  const spans: string[] = [];
  for (const line of readFileSync(file, 'utf8').trimEnd().split('\n')) {
    for (const rs of JSON.parse(line).resourceSpans) {
      for (const ss of rs.scopeSpans) {
        for (const span of ss.spans) spans.push(canonical({ resource: rs.resource, scope: ss.scope, span }));
      }
    }
  }
  return spans.sort();
}

/** Every span the emulator keeps, in the same form. */
async function storedSpans(): Promise<string[]> {
  const stored = (await emu.control('GET', '/spans?limit=20000')).body as {
    data: Array<{ resource: unknown; scope: unknown; span: unknown }>;
  };
  return stored.data.map((d) => canonical({ resource: d.resource, scope: d.scope, span: d.span })).sort();
}

async function total(): Promise<number> {
  return ((await emu.control('GET', '/spans?limit=0')).body as { total: number }).total;
}

// The files are large enough to be read on worker threads (over 4 MiB): a test takes ~5 s on a quiet
// machine, and ten times that or more on a busy one (test/helpers/patience.ts).
describe('aip traces send on worker threads', { timeout: patience(180_000) }, () => {
  it('reads a large JSON Lines file on several threads and sends every span once, exactly', async () => {
    const file = join(t.dir, 'big.jsonl');
    expect(
      (
        await runAip(['traces', 'generate', '--spans', '12000', '--routing', 'team/exact', '-o', file], {
          env,
        })
      ).code,
    ).toBe(0);
    const r = await runAip(['traces', 'send', file, '--workers', '2', '--json'], { env });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ workers: 2, spans: 12000, accepted: 12000, rejected: 0 });
    expect(await storedSpans()).toEqual(spansOf(file));
  });

  it('--stream sends agent-shaped spans as they are read, every span once, exactly', async () => {
    const file = join(t.dir, 'agent.jsonl');
    const generated = await runAip(
      ['traces', 'generate', '--spans', '12000', '--shape', 'agent', '--routing', 'team/agents', '-o', file],
      { env },
    );
    expect(generated.code).toBe(0);
    const r = await runAip(['traces', 'send', file, '--stream', '--workers', '2', '--json'], { env });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ workers: 2, spans: 12000, accepted: 12000, rejected: 0 });
    const expected = spansOf(file);
    // GenAI agent turns: model calls with token counts and finish reasons, tool calls, under a root.
    expect(expected.filter((s) => s.includes('"gen_ai.usage.input_tokens"')).length).toBeGreaterThan(6000);
    expect(expected.some((s) => s.includes('"name":"execute_tool '))).toBe(true);
    expect(expected.some((s) => s.includes('"name":"invoke_agent '))).toBe(true);
    expect(await storedSpans()).toEqual(expected);
  });

  it('--stream sends what it has read while the input goes on, and stops at a problem that comes later', async () => {
    const file = join(t.dir, 'late-problem.jsonl');
    expect(
      (await runAip(['traces', 'generate', '--spans', '12000', '--per-document', '100', '-o', file], { env }))
        .code,
    ).toBe(0);
    const lines = readFileSync(file, 'utf8').trimEnd().split('\n');
    lines[117] = lines[117]!.replace(/"traceId":"[0-9a-f]{32}"/, '"traceId":"short"');
    // The first hundred lines (~6 MB) through a pipe, the rest only once spans have arrived: sending
    // while reading is seen to happen, on a machine of any speed.
    const child = spawn(process.execPath, [BIN, 'traces', 'send', '-', '--stream', '--workers', '2'], {
      env: aipEnv(env),
      stdio: 'pipe',
    });
    const done = collect(child, patience(120_000));
    child.stdin.write(`${lines.slice(0, 100).join('\n')}\n`);
    while ((await total()) === 0) await new Promise((resolve) => setTimeout(resolve, 20));
    child.stdin.end(`${lines.slice(100).join('\n')}\n`);
    const r = await done;
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^stdin:118: resourceSpans\[0\]\.scopeSpans\[0\]\.spans\[\d+\]\.traceId: /);
    const last = r.stderr.trimEnd().split('\n').at(-1)!;
    const said =
      /^error: stdin: 1 problem in 12,000 spans; ([\d,]+) spans had been sent \(--stream sends as it reads\)$/.exec(
        last,
      );
    expect(said, last).not.toBeNull();
    const sent = Number(said![1]!.replaceAll(',', ''));
    expect(sent).toBeGreaterThan(0);
    expect(sent).toBeLessThan(12000);
    expect(await total()).toBe(sent);
  });

  it('hands a line too long for a worker back to the main thread, and still sends every span', async () => {
    // Each piece has its own seed, so its span ids differ: the emulator keeps a repeated span once.
    const before = join(t.dir, 'before.jsonl');
    const after = join(t.dir, 'after.jsonl');
    const big = join(t.dir, 'one-line.jsonl');
    for (const [seed, out] of [
      ['2', before],
      ['3', after],
    ] as const) {
      expect(
        (await runAip(['traces', 'generate', '--spans', '10', '--seed', seed, '-o', out], { env })).code,
      ).toBe(0);
    }
    expect(
      (
        await runAip(['traces', 'generate', '--spans', '20000', '--per-document', '20000', '-o', big], {
          env,
        })
      ).code,
    ).toBe(0);
    const file = join(t.dir, 'mixed.jsonl');
    writeFileSync(file, Buffer.concat([readFileSync(before), readFileSync(big), readFileSync(after)]));
    const r = await runAip(['traces', 'send', file, '--workers', '2', '--json'], { env });
    expect(r.stderr).toBe('');
    expect(JSON.parse(r.stdout)).toMatchObject({ workers: 2, spans: 20020, accepted: 20020 });
    expect(await total()).toBe(20020);
  });

  it('reports problems at their line of the whole file, from whichever thread found them, and sends nothing', async () => {
    const file = join(t.dir, 'broken.jsonl');
    expect(
      (await runAip(['traces', 'generate', '--spans', '12000', '--per-document', '100', '-o', file], { env }))
        .code,
    ).toBe(0);
    const lines = readFileSync(file, 'utf8').trimEnd().split('\n');
    lines[99] = lines[99]!.replace(/"spanId":"[0-9a-f]{16}"/, '"spanId":"not-hex"');
    lines[110] = '{"resourceSpans": [';
    writeFileSync(file, `${lines.join('\n')}\n`);
    const r = await runAip(['traces', 'send', file, '--workers', '2'], { env });
    expect(r.code).toBe(2);
    const stderr = r.stderr.trimEnd().split('\n');
    expect(stderr[0]).toMatch(
      new RegExp(
        `^${file}:100: resourceSpans\\[0\\]\\.scopeSpans\\[0\\]\\.spans\\[\\d+\\]\\.spanId: expected 16 hex digits, not "not-hex"$`,
      ),
    );
    expect(stderr[1]).toBe(
      `${file}:111: a document that does not end on its line: JSON Lines needs each document on one line`,
    );
    expect(stderr[2]).toBe(`error: ${file}: 2 problems in 11,900 spans; nothing was sent`);
    expect(await emu.requests({ method: 'POST', path: '/trace/agents/otel/v1/traces' })).toHaveLength(0);
  });
});

describe('aip traces exec as a process', () => {
  it('leaves the terminal streams to the command and exits with its status', async () => {
    const r = await runAip(
      [
        'traces',
        'exec',
        '--',
        process.execPath,
        '-e',
        'process.stdout.write("from the command"); process.exit(4)',
      ],
      { env },
    );
    expect(r.code).toBe(4);
    expect(r.stdout).toBe('from the command');
    expect(r.stderr).toBe('');
    expect(await total()).toBe(1);
  });
});
