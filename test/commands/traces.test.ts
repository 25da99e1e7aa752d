// aip traces send / generate / span / exec, and chat --trace, against the emulator's trace ingest.

import { EventEmitter } from 'node:events';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import type { RequestRecord } from '../../src/emulator/index.js';
import { type RunOptions, words } from '../helpers/cli.js';
import { useEmulator } from '../helpers/emulator.js';
import { patience } from '../helpers/patience.js';
import { waitFor } from '../helpers/wait.js';

const t = useEmulator();
const { emu, run } = t;

const INGEST = '/trace/agents/otel/v1/traces';

interface Stored {
  total: number;
  data: Array<{
    project: string;
    resource: { attributes?: unknown[] };
    scope: Record<string, unknown>;
    span: Record<string, unknown>;
  }>;
}

async function stored(query = ''): Promise<Stored> {
  return (await emu.control('GET', `/spans?limit=1000000${query}`)).body as Stored;
}

async function ingests(): Promise<RequestRecord[]> {
  return emu.requests({ method: 'POST', path: INGEST });
}

/** A generated file (canonical OTLP/JSON) of `spans` spans. */
async function generate(spans: number, args: string[] = []): Promise<string> {
  const file = join(t.dir, `spans-${spans}-${args.join('').replace(/\W/g, '')}.out`);
  const r = await run(['traces', 'generate', '--spans', String(spans), '-o', file, ...args]);
  expect(r.code).toBe(0);
  return file;
}

/** JSON text with sorted keys and without undefined members: equal values, equal text. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : 1)))
      : v,
  );
}

const SPAN = {
  traceId: '5b8efff798038103d269b633813fc60c',
  spanId: 'eee19b7ec3c1b174',
  name: 'GET /cart',
  startTimeUnixNano: '1700000000000000000',
  endTimeUnixNano: '1700000000500000000',
};
const doc = (spans: unknown[], resourceAttributes: unknown[] = []) => ({
  resourceSpans: [
    { resource: { attributes: resourceAttributes }, scopeSpans: [{ scope: { name: 't' }, spans }] },
  ],
});

describe('aip traces send', () => {
  // ~3.5 s on a quiet machine, all of it in this worker (aip and the emulator both): 30 s and more on a
  // busy one (test/helpers/patience.ts).
  it('sends every span of a generated file exactly as the file holds it (10,000 spans)', {
    timeout: patience(180_000),
  }, async () => {
    const file = await generate(10_000, ['--routing', 'team/exact']);
    const r = await run(['traces', 'send', file, '--batch-spans', '700']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(
      /^Sent 10,000 spans of 10,000 \(15\/15 batches, [\d.]+s, [\d,]+ spans\/s\): 10,000 accepted, 0 rejected\n$/,
    );
    // The file, flattened to (resource, scope, span), against what the emulator decoded: compared
    // as canonical JSON text (sorted keys), span by span.
    const expected: string[] = [];
    for (const line of readFileSync(file, 'utf8').trimEnd().split('\n')) {
      for (const rs of JSON.parse(line).resourceSpans) {
        for (const ss of rs.scopeSpans) {
          for (const span of ss.spans) {
            expected.push(
              canonical({
                resource: rs.resource,
                resourceSchema: rs.schemaUrl,
                scope: ss.scope,
                scopeSchema: ss.schemaUrl,
                span,
              }),
            );
          }
        }
      }
    }
    const got = await stored();
    expect(got.total).toBe(10_000);
    const actual = got.data.map((r) => {
      const d = r as Stored['data'][number] & { resource_schema_url?: string; scope_schema_url?: string };
      return canonical({
        resource: d.resource,
        resourceSchema: d.resource_schema_url,
        scope: d.scope,
        scopeSchema: d.scope_schema_url,
        span: d.span,
      });
    });
    expect(actual.sort()).toEqual(expected.sort());
    expect(new Set(got.data.map((d) => d.project))).toEqual(new Set(['team/exact']));
  });

  it('reads one pretty document, JSON Lines, stdin, gzip and protobuf alike', async () => {
    const jsonl = await generate(300);
    const pretty = await generate(300, ['--format', 'json']);
    expect(readFileSync(pretty, 'utf8')).toMatch(/^{\n {2}"resourceSpans": \[\n/);
    const pb = await generate(300, ['--format', 'protobuf']);
    const gz = join(t.dir, 'spans.jsonl.gz');
    writeFileSync(gz, gzipSync(readFileSync(jsonl)));
    for (const [args, options] of [
      [[jsonl], {}],
      [[pretty], {}],
      [[pb], {}],
      [[gz], {}],
      [['-'], { stdin: readFileSync(jsonl, 'utf8') }],
    ] as Array<[string[], RunOptions]>) {
      await emu.reset();
      const r = await run(['traces', 'send', ...args, '--json'], options);
      expect(r.code).toBe(0);
      const summary = JSON.parse(r.stdout);
      expect(summary).toMatchObject({ spans: 300, sent: 300, accepted: 300, rejected: 0, dry_run: false });
      expect((await stored()).total).toBe(300);
    }
    const r = await run(['traces', 'send', gz, '--json']);
    expect(JSON.parse(r.stdout)).toMatchObject({ format: 'json', gzipped: true });
    expect(JSON.parse((await run(['traces', 'send', pb, '--json'])).stdout)).toMatchObject({
      format: 'protobuf',
    });
  });

  it('sends protobuf, gzipped, with Basic credentials and the project header', async () => {
    const file = join(t.dir, 'one.json');
    writeFileSync(file, JSON.stringify(doc([SPAN])));
    expect((await run(['traces', 'send', file])).code).toBe(0);
    const [request] = await ingests();
    expect(request!.headers).toMatchObject({
      'content-type': 'application/x-protobuf',
      'content-encoding': 'gzip',
      authorization: expect.stringMatching(/^Basic \*\*\*\*/),
      project_id: 'local/demo',
    });
    expect(request!.body).toMatchObject({ bytes: expect.any(Number) });
  });

  it("routes by the configured project where the resource has none, and keeps a resource's own", async () => {
    const file = join(t.dir, 'mixed.jsonl');
    const own = [
      { key: 'wandb.entity', value: { stringValue: 'other' } },
      { key: 'wandb.project', value: { stringValue: 'theirs' } },
    ];
    writeFileSync(
      file,
      `${JSON.stringify(doc([SPAN]))}\n${JSON.stringify(doc([{ ...SPAN, spanId: 'eee19b7ec3c1b175' }], own))}\n`,
    );
    expect((await run(['traces', 'send', file])).code).toBe(0);
    const got = await stored();
    expect(Object.fromEntries(got.data.map((d) => [d.span.spanId, d.project]))).toEqual({
      eee19b7ec3c1b174: 'local/demo',
      eee19b7ec3c1b175: 'other/theirs',
    });
    expect(got.data.find((d) => d.project === 'local/demo')!.resource.attributes).toEqual([
      { key: 'wandb.entity', value: { stringValue: 'local' } },
      { key: 'wandb.project', value: { stringValue: 'demo' } },
    ]);
  });

  it('routes spans by a resource that comes after them, in JSON Lines read value by value (review)', async () => {
    // A line over a third of the line limit is scanned value by value, and its batches are made as
    // its spans come: those made before the resource are encoded again with it before anything goes.
    const file = join(t.dir, 'late-resource.jsonl');
    const late = {
      attributes: [
        { key: 'wandb.entity', value: { stringValue: 'team' } },
        { key: 'wandb.project', value: { stringValue: 'late' } },
      ],
    };
    const spans = Array.from({ length: 6 }, (_, i) => ({
      ...SPAN,
      spanId: `eee19b7ec3c1b17${i}`,
      name: `span ${i} ${'x'.repeat(200)}`,
    }));
    const line = JSON.stringify({
      resourceSpans: [{ scopeSpans: [{ scope: { name: 't' }, spans }], resource: late }],
    });
    writeFileSync(file, `${line}\n`);
    for (const workers of ['0', '2']) {
      await emu.reset();
      const r = await run(['traces', 'send', file, '--batch-spans', '1', '--workers', workers], {
        env: { AIP_MAX_LINE_BYTES: '3000', AIP_PROJECT: 'cfg/default' },
      });
      expect([workers, r.code, r.stderr]).toEqual([workers, 0, '']);
      expect((await stored()).data.map((d) => d.project)).toEqual(Array(6).fill('team/late'));
    }
  });

  it('refuses spans that would route nowhere, before sending, when no project is configured', async () => {
    const file = join(t.dir, 'unrouted.json');
    writeFileSync(file, JSON.stringify(doc([SPAN, { ...SPAN, spanId: 'eee19b7ec3c1b175' }]), null, 2));
    const r = await run(['traces', 'send', file], { env: { AIP_PROJECT: '' } });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(new RegExp(`^${file}:3: 2 spans: no project for these spans`));
    expect(await ingests()).toHaveLength(0);
  });

  it('lists every problem as file:line: path: problem and sends nothing', async () => {
    const file = join(t.dir, 'bad.jsonl');
    const good = JSON.stringify(doc([SPAN]));
    const bad = JSON.stringify(
      doc([
        { ...SPAN, spanId: 'nope' },
        { ...SPAN, name: '' },
      ]),
    );
    writeFileSync(file, `${good}\n${bad}\n{"resourceSpans": [\n${good}\n`);
    const r = await run(['traces', 'send', file]);
    expect(r.code).toBe(2);
    expect(r.stderr.split('\n')).toEqual([
      `${file}:2: resourceSpans[0].scopeSpans[0].spans[0].spanId: expected 16 hex digits, not "nope"`,
      `${file}:2: resourceSpans[0].scopeSpans[0].spans[1].name: required: a span needs a name`,
      `${file}:3: a document that does not end on its line: JSON Lines needs each document on one line`,
      `error: ${file}: 3 problems in 4 spans; nothing was sent`,
      '',
    ]);
    expect(await ingests()).toHaveLength(0);
    const pb = join(t.dir, 'bad.pb');
    writeFileSync(pb, Buffer.from([0x0a, 0x05, 0x01]));
    const notPb = await run(['traces', 'send', pb]);
    expect(notPb.code).toBe(2);
    expect(notPb.stderr).toMatch(new RegExp(`^${pb}: not an OTLP ExportTraceServiceRequest in protobuf: `));
    // A file that starts as JSON and is not: a JSON error at its place, not a protobuf one.
    const broken = join(t.dir, 'broken.json');
    writeFileSync(broken, '{not json}\n');
    const notJson = await run(['traces', 'send', broken]);
    expect(notJson.code).toBe(2);
    expect(notJson.stderr.split('\n')[0]).toMatch(new RegExp(`^${broken}:1: invalid JSON`));
    expect(notJson.stderr).not.toMatch(/protobuf/);
    const empty = join(t.dir, 'empty.json');
    writeFileSync(empty, '{"resourceSpans": []}');
    expect((await run(['traces', 'send', empty])).stderr).toBe(
      `${empty}: no spans in the input\nerror: ${empty}: 1 problem in 0 spans; nothing was sent\n`,
    );
    expect((await run(['traces', 'send', join(t.dir, 'missing.json')])).code).toBe(2);
  });

  it('a protobuf request whose first length byte reads as "{" is still protobuf', async () => {
    const { encodeRequest } = await import('../../src/traces/otlp/otlp.js');
    const { spanFromJson } = await import('../../src/traces/otlp/otlp-json.js');
    // Grow one attribute until the first ResourceSpans is exactly 123 bytes: the file starts 0a 7b.
    for (let pad = 0; pad < 200; pad++) {
      const resourceSpans = [
        {
          resource: { attributes: [{ key: 'k', value: { stringValue: 'x'.repeat(pad) } }] },
          scopeSpans: [{ spans: [spanFromJson({ ...SPAN }, [])!] }],
        },
      ];
      const bytes = encodeRequest({ resourceSpans });
      if (bytes[1] !== 0x7b) continue;
      const file = join(t.dir, 'brace.pb');
      writeFileSync(file, bytes);
      const r = await run(['traces', 'send', file, '--json']);
      expect(r.stderr).toBe('');
      expect(JSON.parse(r.stdout)).toMatchObject({ format: 'protobuf', accepted: 1 });
      return;
    }
    throw new Error('no padding gave a length of 123');
  });

  it('a protobuf file broken part-way is refused with where it breaks, nothing sent', async () => {
    const pb = await generate(300, ['--format', 'protobuf']);
    const cut = join(t.dir, 'cut.pb');
    writeFileSync(cut, readFileSync(pb).subarray(0, 5000));
    const r = await run(['traces', 'send', cut]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      new RegExp(`^${cut}: not an OTLP ExportTraceServiceRequest in protobuf: .* \\(byte \\d+\\)\n`),
    );
    expect(await ingests()).toHaveLength(0);
  });

  it('a gzip file cut short is bad input, said in one line', async () => {
    const jsonl = await generate(300);
    const gz = join(t.dir, 'cut.jsonl.gz');
    const whole = gzipSync(readFileSync(jsonl));
    writeFileSync(gz, whole.subarray(0, whole.length >> 1));
    const r = await run(['traces', 'send', gz]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      `error: ${gz}: not a complete gzip stream (unexpected end of file); nothing was sent\n`,
    );
    expect(await ingests()).toHaveLength(0);
  });

  it('checks base64 bytes values strictly', async () => {
    const file = join(t.dir, 'b64.json');
    writeFileSync(
      file,
      JSON.stringify(doc([{ ...SPAN, attributes: [{ key: 'b', value: { bytesValue: 'a' } }] }])),
    );
    const r = await run(['traces', 'send', file]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/attributes\[0\]\.value\.bytesValue: expected base64 text, not "a"/);
  });

  it('Ctrl-C while reading stops at once, sends nothing and leaves nothing behind', async () => {
    const file = await generate(20_000);
    const signals = new EventEmitter();
    const running = run(['traces', 'send', file], { signals });
    // Ctrl-C is listened for from just before the reading starts: pressed then, it comes while reading.
    await waitFor(() => signals.listenerCount('SIGINT') > 0);
    signals.emit('SIGINT');
    const r = await running;
    expect(r.code).toBe(130);
    expect(r.stderr).toBe('Stopped while reading; nothing was sent\nerror: interrupted\n');
    expect(await ingests()).toHaveLength(0);
    expect(signals.listenerCount('SIGINT')).toBe(0);
    expect(signals.listenerCount('SIGTERM')).toBe(0);
  });

  it('--dry-run checks and counts, and sends nothing', async () => {
    const file = await generate(1200);
    const r = await run(['traces', 'send', file, '--dry-run']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(`${file} (OTLP/JSON): 1,200 spans in 3 batches, all valid\n`);
    expect(await ingests()).toHaveLength(0);
  });

  it('bounds batches by spans and by bytes', async () => {
    const file = await generate(1000);
    const r = await run(['traces', 'send', file, '--batch-bytes', '64KB', '--json']);
    expect(r.code).toBe(0);
    const batches = JSON.parse(r.stdout).batches;
    expect(batches).toBeGreaterThan(2);
    const requests = await ingests();
    expect(requests).toHaveLength(batches);
    await emu.reset();
    expect(
      JSON.parse((await run(['traces', 'send', file, '--batch-spans', '100', '--json'])).stdout).batches,
    ).toBe(10);
    expect((await run(['traces', 'send', file, '--batch-bytes', '1KB'])).code).toBe(2);
  });

  it('retries batches that meet 503s, and no span arrives twice', async () => {
    const file = await generate(2000);
    await emu.fault({ path: INGEST, status: 503, retry_after: '0', times: 3 });
    const r = await run(['traces', 'send', file, '--concurrency', '1', '--json']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ accepted: 2000, retried_batches: 1 });
    expect((await ingests()).map((q) => q.status)).toEqual([503, 503, 503, 200, 200, 200, 200]);
    const got = await stored();
    expect(got.total).toBe(2000);
    expect(new Set(got.data.map((d) => d.span.spanId)).size).toBe(2000);
  });

  it('a batch that fails for good stops the sending, says what was sent, and exits non-zero', async () => {
    const file = await generate(2000);
    await emu.fault({ path: INGEST, method: 'POST', times: 1, drop: true });
    const dropped = await run(['--max-retries', '0', 'traces', 'send', file, '--concurrency', '1']);
    expect(dropped.code).toBe(1);
    expect(dropped.stdout).toMatch(/^Sent 0 spans of 2,000 \(0\/4 batches/);
    expect(dropped.stderr).toMatch(
      /^error: batch 1 of 4 failed: trace ingest unreachable: POST \/trace\/agents\/otel\/v1\/traces /,
    );
    await emu.reset();
    await emu.fault({ path: INGEST, status: 401, times: 10 });
    const denied = await run(['traces', 'send', file]);
    expect(denied.code).toBe(4);
    expect(denied.stderr).toMatch(/Authentication failed/);
  });

  it('spans the platform rejects make a non-zero exit with its message', async () => {
    const file = await generate(10);
    await emu.fault({
      path: INGEST,
      status: 200,
      body: { accepted_spans: 7, rejected_spans: 3, error_message: 'span too old' },
      times: 1,
    });
    const r = await run(['traces', 'send', file]);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/7 accepted, 3 rejected\n$/);
    expect(r.stderr).toBe('error: the platform rejected 3 spans: span too old\n');
  });

  it('needs a key, and keeps it off plain http to other hosts', async () => {
    const file = await generate(10);
    expect((await run(['traces', 'send', file], { env: { AIP_API_KEY: '' } })).code).toBe(4);
    const r = await run(['traces', 'send', file], { env: { AIP_TRACE_URL: 'http://example.com/trace' } });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/refusing to send the API key over plain http to example\.com/);
  });
});

describe('aip traces span', () => {
  it('sends one span and prints its traceparent', async () => {
    const r = await run([
      'traces',
      'span',
      '--name',
      'deploy',
      '--start',
      '2026-11-21T09:30:00.123456789Z',
      '--end',
      '1795253401.5',
      '--attr',
      'env=prod',
      '--attr',
      'attempt=2',
      '--attr',
      'ratio=0.5',
      '--attr',
      'dry=false',
      '--attr',
      'version="1.10"',
      '--kind',
      'server',
      '--status',
      'error',
      '--status-message',
      'rolled back',
    ]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const [, traceId, spanId] = /^00-([0-9a-f]{32})-([0-9a-f]{16})-01\n$/.exec(r.stdout)!;
    const [record] = (await stored()).data;
    expect(record!.span).toEqual({
      traceId,
      spanId,
      flags: 1,
      name: 'deploy',
      kind: 2,
      startTimeUnixNano: '1795253400123456789',
      endTimeUnixNano: '1795253401500000000',
      attributes: [
        { key: 'env', value: { stringValue: 'prod' } },
        { key: 'attempt', value: { intValue: '2' } },
        { key: 'ratio', value: { doubleValue: 0.5 } },
        { key: 'dry', value: { boolValue: false } },
        { key: 'version', value: { stringValue: '1.10' } },
      ],
      status: { code: 2, message: 'rolled back' },
    });
    expect(record!.resource.attributes).toContainEqual({
      key: 'service.name',
      value: { stringValue: 'aip' },
    });
    expect(record!.project).toBe('local/demo');
  });

  it('takes now, and RFC 3339 as date prints it (a space or T, a comma or point), and refuses dates that do not exist', async () => {
    expect((await run(['traces', 'span', '--name', 'a', '--start', 'now'])).code).toBe(0);
    expect((await run(['traces', 'span', '--name', 'a', '--start', 'now', '--end', 'now'])).code).toBe(0);
    for (const [start, nanos] of [
      ['2026-11-21 09:30:00.5+00:00', '1795253400500000000'],
      ['2026-11-21T10:30:00,123456789+01:00', '1795253400123456789'],
    ]) {
      await emu.reset();
      expect(
        (await run(['traces', 'span', '--name', 'a', '--start', start!, '--end', '1795253500'])).code,
      ).toBe(0);
      expect((await stored()).data[0]!.span.startTimeUnixNano).toBe(nanos);
    }
    const bad = await run(['traces', 'span', '--name', 'a', '--start', '2026-02-30T00:00:00Z']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^error: --start 2026-02-30T00:00:00Z: expected "now", Unix seconds/);
  });

  it('keeps a value with a leading zero as text', async () => {
    expect((await run('traces span --name z --attr zip=02134 --attr n=0 --attr x=0.5')).code).toBe(0);
    expect((await stored()).data[0]!.span.attributes).toEqual([
      { key: 'zip', value: { stringValue: '02134' } },
      { key: 'n', value: { intValue: '0' } },
      { key: 'x', value: { doubleValue: 0.5 } },
    ]);
  });

  it('nests under TRACEPARENT (or --parent), and says when either is malformed', async () => {
    const parent = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
    const r = await run(['traces', 'span', '--name', 'child'], { env: { TRACEPARENT: parent } });
    expect(r.stdout).toMatch(/^00-4bf92f3577b34da6a3ce929d0e0e4736-[0-9a-f]{16}-01\n$/);
    expect((await stored()).data[0]!.span).toMatchObject({
      traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
      parentSpanId: '00f067aa0ba902b7',
    });
    const bad = await run(['traces', 'span', '--name', 'x'], { env: { TRACEPARENT: 'garbage' } });
    expect(bad.code).toBe(0);
    expect(bad.stderr).toBe(
      'warning: ignoring TRACEPARENT=garbage: not a W3C traceparent; starting a new trace\n',
    );
    expect((await run(['traces', 'span', '--name', 'x', '--parent', 'garbage'])).code).toBe(2);
  });

  it('checks its flags before sending anything', async () => {
    for (const args of [
      ['--start', 'yesterday'],
      ['--start', '20', '--end', '10'],
      ['--status-message', 'x'],
      ['--attr', 'novalue'],
      ['--kind', 'sideways'],
    ]) {
      expect((await run(['traces', 'span', '--name', 'x', ...args])).code).toBe(2);
    }
    const noProject = await run(['traces', 'span', '--name', 'x'], { env: { AIP_PROJECT: '' } });
    expect(noProject.code).toBe(2);
    expect(noProject.stderr).toMatch(/^error: no project for the span/);
    expect(await ingests()).toHaveLength(0);
    // OTEL_RESOURCE_ATTRIBUTES can route it instead.
    const routed = await run(['traces', 'span', '--name', 'x'], {
      env: {
        AIP_PROJECT: '',
        OTEL_RESOURCE_ATTRIBUTES: 'wandb.entity=t,wandb.project=p,deployment.environment=ci',
      },
    });
    expect(routed.code).toBe(0);
    expect((await stored()).data[0]!.project).toBe('t/p');
  });
});

describe('aip traces exec', () => {
  const node = process.execPath;

  it("passes the command's exit status through, and records it on the span", async () => {
    const r = await run([
      'traces',
      'exec',
      '--name',
      'step',
      '--attr',
      'ci.job=build',
      '--',
      node,
      '-e',
      'console.log("out"); console.error("err"); process.exit(3)',
    ]);
    expect(r.code).toBe(3);
    expect(r.stdout).toBe('out\n');
    expect(r.stderr).toBe('err\n');
    const [record] = (await stored()).data;
    expect(record!.span).toMatchObject({
      name: 'step',
      kind: 1,
      status: { code: 2, message: 'exit status 3' },
    });
    expect(record!.span.attributes).toEqual(
      expect.arrayContaining([
        { key: 'process.exit.code', value: { intValue: '3' } },
        {
          key: 'process.command_args',
          value: {
            arrayValue: { values: [{ stringValue: node }, { stringValue: '-e' }, expect.any(Object)] },
          },
        },
        { key: 'ci.job', value: { stringValue: 'build' } },
      ]),
    );
    const ok = await run(['traces', 'exec', '--', node, '-e', '0']);
    expect(ok.code).toBe(0);
    expect((await stored('&name=execute_tool%20node')).data[0]!.span).not.toHaveProperty('status');
  });

  it('gives the command TRACEPARENT for its own span, under the incoming one', async () => {
    const incoming = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
    const r = await run(
      ['traces', 'exec', '--', node, '-e', 'process.stdout.write(process.env.TRACEPARENT)'],
      {
        env: { TRACEPARENT: incoming },
      },
    );
    expect(r.code).toBe(0);
    const [, traceId, spanId] = /^00-([0-9a-f]{32})-([0-9a-f]{16})-01$/.exec(r.stdout)!;
    expect(traceId).toBe('4bf92f3577b34da6a3ce929d0e0e4736');
    expect((await stored()).data[0]!.span).toMatchObject({
      traceId,
      spanId,
      parentSpanId: '00f067aa0ba902b7',
    });
  });

  it('a command that cannot start is 127, still with its span; a span that cannot be sent is only a warning', async () => {
    const missing = await run(['traces', 'exec', '--', '/nonexistent/tool']);
    expect(missing.code).toBe(127);
    expect(missing.stderr).toBe('aip traces exec: /nonexistent/tool: command not found\n');
    expect((await stored()).data[0]!.span).toMatchObject({
      status: { code: 2, message: 'command not found' },
    });
    await emu.fault({ path: INGEST, status: 500, times: 10 });
    const unsent = await run(['--max-retries', '0', 'traces', 'exec', '--', node, '-e', 'process.exit(0)']);
    expect(unsent.code).toBe(0);
    expect(unsent.stderr).toMatch(/^warning: the span could not be sent: /);
  });

  it('refuses a key bound for plain http before running the command', async () => {
    const marker = join(t.dir, 'ran');
    const r = await run(
      ['traces', 'exec', '--', node, '-e', `require('fs').writeFileSync(${JSON.stringify(marker)}, '')`],
      {
        env: { AIP_TRACE_URL: 'http://example.com/trace' },
      },
    );
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/refusing to send the API key over plain http to example\.com/);
    expect(() => readFileSync(marker)).toThrow();
  });

  it('on a terminal, leaves Ctrl-C to the terminal (the command has it already) instead of sending it again', async () => {
    const signals = new EventEmitter();
    const running = run(['traces', 'exec', '--', node, '-e', 'setTimeout(() => {}, 10000)'], {
      signals,
      stdinTTY: true,
    });
    // aip listens for the signals it passes on once the command has started.
    await waitFor(() => signals.listenerCount('SIGTERM') > 0);
    signals.emit('SIGINT');
    // Time for a SIGINT wrongly passed on to end the command (exit 130) before the SIGTERM comes.
    await new Promise((r) => setTimeout(r, 200));
    signals.emit('SIGTERM');
    const r = await running;
    // Ended by the SIGTERM: the SIGINT was not passed on.
    expect(r.code).toBe(143);
  });

  it('forwards a SIGTERM to the command and reports how it ended', async () => {
    const signals = new EventEmitter();
    const running = run(['traces', 'exec', '--', node, '-e', 'setTimeout(() => {}, 10000)'], { signals });
    // aip listens for the signals it passes on once the command has started.
    await waitFor(() => signals.listenerCount('SIGTERM') > 0);
    signals.emit('SIGTERM');
    const r = await running;
    expect(r.code).toBe(143);
    expect((await stored()).data[0]!.span).toMatchObject({
      status: { code: 2, message: 'killed by SIGTERM' },
    });
  });
});

describe('aip traces generate', () => {
  it('writes the same spans for the same seed and start, in JSON Lines, one document or protobuf', async () => {
    const args = ['traces', 'generate', '--spans', '50', '--seed', '7', '--start', '2026-11-01T00:00:00Z'];
    const a = await run(args);
    const b = await run(args);
    expect(a.code).toBe(0);
    expect(b.stdout).toBe(a.stdout);
    expect((await run([...args.slice(0, -1), '2026-11-02T00:00:00Z'])).stdout).not.toBe(a.stdout);
    expect((await run([...args.slice(0, 5), '8', ...args.slice(6)])).stdout).not.toBe(a.stdout);
    const lines = a.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(1);
    const spans = JSON.parse(lines[0]!).resourceSpans[0].scopeSpans[0].spans;
    expect(spans).toHaveLength(50);
    expect(BigInt(spans[0].startTimeUnixNano)).toBeGreaterThanOrEqual(1_793_491_200_000_000_000n);
    const one = JSON.parse(
      (await run(['traces', 'generate', '--spans', '1200', '--format', 'json', '--per-document', '500']))
        .stdout,
    );
    expect(one.resourceSpans).toHaveLength(3);
    expect(
      (await run(['traces', 'generate', '--spans', '5', '--format', 'protobuf'], { stdoutTTY: true })).code,
    ).toBe(2);
    const unwritable = await run(
      words`traces generate --spans 5 -o ${join(t.dir, 'no', 'such', 'dir.jsonl')}`,
    );
    expect(unwritable.code).toBe(2);
    expect(unwritable.stderr).toMatch(/^error: cannot write .*: its directory does not exist \(ENOENT\)\n$/);
  });
});

describe('aip chat --trace', () => {
  it('records the exchange as a GenAI chat span', async () => {
    const r = await run('chat -m openai/gpt-oss-20b --trace --max-tokens 5 --temperature 0.5 hello');
    expect(r.code).toBe(0);
    const [record] = (await stored()).data;
    expect(record!.span).toMatchObject({ name: 'chat openai/gpt-oss-20b', kind: 3 });
    const attributes = Object.fromEntries(
      (record!.span.attributes as Array<{ key: string; value: Record<string, unknown> }>).map((a) => [
        a.key,
        Object.values(a.value)[0],
      ]),
    );
    expect(attributes).toMatchObject({
      'gen_ai.operation.name': 'chat',
      'gen_ai.request.model': 'openai/gpt-oss-20b',
      'gen_ai.response.model': 'openai/gpt-oss-20b',
      'gen_ai.request.temperature': 0.5,
      'gen_ai.request.max_tokens': '5',
      'gen_ai.usage.output_tokens': '5',
      'gen_ai.usage.input_tokens': expect.stringMatching(/^\d+$/),
      'gen_ai.response.finish_reasons': { values: [{ stringValue: 'length' }] },
      'server.address': '127.0.0.1',
    });
  });

  it('records a failed exchange with its error, and is refused up front without a project', async () => {
    await emu.fault({ path: '/inference/v1/chat/completions', status: 429, retry_after: '0', times: 5 });
    const r = await run(['--max-retries', '0', 'chat', '-m', 'openai/gpt-oss-20b', '--trace', 'hi']);
    expect(r.code).toBe(6);
    expect((await stored()).data[0]!.span).toMatchObject({ status: { code: 2 } });
    const noProject = await run(['chat', '-m', 'openai/gpt-oss-20b', '--trace', 'hi'], {
      env: { AIP_PROJECT: '' },
    });
    expect(noProject.code).toBe(2);
    expect(await emu.requests({ path: '/inference/v1/chat/completions' })).toHaveLength(1);
  });
});
