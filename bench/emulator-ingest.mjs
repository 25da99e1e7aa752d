// The emulator's trace ingest, alone: CPU of the emulator's process a span accepted, for OTLP protobuf
// requests shaped like a real GenAI agent's traces (about 1 KB a span: an invoke_agent root over chat
// and execute_tool spans, gen_ai.* attributes, token counts, temperatures, finish-reason arrays, the
// prompt and completion as events), 512 spans a request, gzip as exporters send them. The bytes are
// built here (a small protobuf writer: no dependency on what is measured), and the emulator runs as its
// own process, `aip emulator --ephemeral`, its CPU read from the operating system before and after, so
// that nothing of the client's is counted.
//
//   node bench/emulator-ingest.mjs [--spans N] [--bin bin/aip.js]      (npm run build first)

import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const KEY = 'aip-emulator-local-key';
const PER_REQUEST = 512;
/** What the issue asks of the emulator's ingest: CPU a span, in microseconds. */
export const INGEST_TARGET_US = 4;

// --- A protobuf writer: just what OTLP traces need. ---
class Writer {
  constructor() {
    this.parts = [];
  }
  varint(n) {
    const out = [];
    let v = BigInt(n);
    do {
      let byte = Number(v & 0x7fn);
      v >>= 7n;
      if (v > 0n) byte |= 0x80;
      out.push(byte);
    } while (v > 0n);
    this.parts.push(Buffer.from(out));
    return this;
  }
  tag(field, wire) {
    return this.varint((field << 3) | wire);
  }
  bytes(field, buf) {
    this.tag(field, 2).varint(buf.length);
    this.parts.push(Buffer.from(buf));
    return this;
  }
  string(field, s) {
    return this.bytes(field, Buffer.from(s, 'utf8'));
  }
  message(field, w) {
    return this.bytes(field, w.finish());
  }
  fixed64(field, n) {
    const b = Buffer.alloc(8);
    b.writeBigUInt64LE(BigInt(n));
    this.tag(field, 1);
    this.parts.push(b);
    return this;
  }
  double(field, x) {
    const b = Buffer.alloc(8);
    b.writeDoubleLE(x);
    this.tag(field, 1);
    this.parts.push(b);
    return this;
  }
  finish() {
    return Buffer.concat(this.parts);
  }
}

function anyValue(value) {
  const w = new Writer();
  if (typeof value === 'string') w.string(1, value);
  else if (typeof value === 'boolean') w.tag(2, 0).varint(value ? 1 : 0);
  else if (Number.isInteger(value)) w.tag(3, 0).varint(value);
  else if (typeof value === 'number') w.double(4, value);
  else if (Array.isArray(value)) {
    const list = new Writer();
    for (const v of value) list.message(1, anyValue(v));
    w.message(5, list);
  }
  return w;
}

function keyValue(key, value) {
  return new Writer().string(1, key).message(2, anyValue(value));
}

function attributes(w, field, attrs) {
  for (const [k, v] of Object.entries(attrs)) w.message(field, keyValue(k, v));
}

/** A deterministic generator: the same bytes every run. */
function randomFrom(seed) {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

const WORDS = (
  'the agent user order refund policy table rows query result error retry answer customer invoice ' +
  'search found page summary step plan tool call returned because which should would could data ' +
  'ünïcødé "quoted" line\nbreak 42 3.14 {"id": 7} account status shipped pending'
).split(' ');

/** `count` spans of agent turns: invoke_agent over chat and execute_tool spans. */
function agentSpans(random, count, startNanos) {
  const below = (n) => Math.floor(random() * n);
  const pick = (list) => list[below(list.length)];
  const id = (n) => Buffer.from(Array.from({ length: n }, () => 1 + below(255)));
  const text = (words) => Array.from({ length: words }, () => pick(WORDS)).join(' ');
  const spans = [];
  let clock = BigInt(startNanos);
  while (spans.length < count) {
    const traceId = id(16);
    const root = id(8);
    const model = pick(['openai/gpt-oss-20b', 'Qwen/Qwen3-14B-Instruct', 'meta-llama/Llama-3.1-8B-Instruct']);
    const turnStart = clock;
    const children = Math.min(count - spans.length - 1, 2 + below(5));
    for (let i = 0; i < children; i++) {
      const chat = i % 2 === 0;
      const start = clock + 1_000_000n;
      clock = start + BigInt(50_000_000 + below(900_000_000));
      const w = new Writer()
        .bytes(1, traceId)
        .bytes(2, id(8))
        .bytes(4, root)
        .string(5, chat ? `chat ${model}` : `execute_tool ${pick(['search_docs', 'run_sql', 'fetch_url'])}`)
        .tag(6, 0)
        .varint(chat ? 3 : 1)
        .fixed64(7, start)
        .fixed64(8, clock);
      if (chat) {
        attributes(w, 9, {
          'gen_ai.operation.name': 'chat',
          'gen_ai.system': 'openai',
          'gen_ai.request.model': model,
          'gen_ai.response.model': model,
          'gen_ai.request.temperature': Math.round(random() * 100) / 100,
          'gen_ai.request.max_tokens': 1024,
          'gen_ai.usage.input_tokens': 200 + below(3000),
          'gen_ai.usage.output_tokens': 20 + below(800),
          'gen_ai.response.finish_reasons': [pick(['stop', 'tool_calls', 'length'])],
          'gen_ai.response.id': `chatcmpl-${id(12).toString('hex')}`,
        });
        const prompt = new Writer().fixed64(1, start).string(2, 'gen_ai.user.message');
        attributes(prompt, 3, { 'gen_ai.system': 'openai', content: text(40 + below(40)) });
        const completion = new Writer().fixed64(1, clock).string(2, 'gen_ai.choice');
        attributes(completion, 3, { index: 0, finish_reason: 'stop', content: text(30 + below(30)) });
        w.message(11, prompt).message(11, completion);
      } else {
        attributes(w, 9, {
          'gen_ai.operation.name': 'execute_tool',
          'gen_ai.tool.name': pick(['search_docs', 'run_sql', 'fetch_url']),
          'gen_ai.tool.call.id': `call_${id(8).toString('hex')}`,
          'gen_ai.tool.type': 'function',
          'tool.arguments': `{"query": "${text(8)}"}`,
          'tool.result': text(60 + below(60)),
        });
      }
      w.message(15, new Writer().tag(3, 0).varint(1));
      spans.push(w);
    }
    const w = new Writer()
      .bytes(1, traceId)
      .bytes(2, root)
      .string(5, 'invoke_agent support-agent')
      .tag(6, 0)
      .varint(1)
      .fixed64(7, turnStart)
      .fixed64(8, clock + 1_000_000n);
    attributes(w, 9, {
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.agent.name': 'support-agent',
      'gen_ai.agent.id': `agent_${id(6).toString('hex')}`,
      'gen_ai.conversation.id': `conv_${id(8).toString('hex')}`,
      'gen_ai.usage.input_tokens': 1000 + below(9000),
      'gen_ai.usage.output_tokens': 100 + below(2000),
      'user.query': text(30),
    });
    spans.push(w);
    clock += 10_000_000n;
  }
  return spans;
}

/** One ExportTraceServiceRequest of `spans` agent spans, routed by resource attributes. */
export function agentRequest(seed, spans, project = { entity: 'bench', project: 'ingest' }) {
  const random = randomFrom(seed);
  const resource = new Writer();
  attributes(resource, 1, {
    'service.name': 'support-agent',
    'service.version': '2.3.1',
    'telemetry.sdk.name': 'opentelemetry',
    'telemetry.sdk.language': 'python',
    'telemetry.sdk.version': '1.38.0',
    'wandb.entity': project.entity,
    'wandb.project': project.project,
  });
  const scope = new Writer().message(
    1,
    new Writer().string(1, 'opentelemetry.instrumentation.openai').string(2, '0.47.0'),
  );
  for (const span of agentSpans(random, spans, 1_760_000_000_000_000_000n + BigInt(seed) * 1_000_000_000n))
    scope.message(2, span);
  const rs = new Writer().message(1, resource).message(2, scope);
  return new Writer().message(1, rs).finish();
}

/** user+system CPU of a process so far, in microseconds (Linux: /proc). */
function cpuMicros(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  // USER_HZ is 100 on Linux.
  const user = (Number(fields[11]) * 1_000_000) / 100;
  const system = (Number(fields[12]) * 1_000_000) / 100;
  return { total: user + system, user, system };
}

function startEmulator(node, bin, env) {
  return new Promise((resolve, reject) => {
    const child = spawn(node, [bin, 'emulator', '--port', '0', '--ephemeral'], {
      env,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let err = '';
    child.stderr.on('data', (d) => {
      err += d;
      const m = /listening on (http:\/\/[\d.]+:\d+)/.exec(err);
      if (m) {
        child.stderr.removeAllListeners('data');
        child.stderr.resume();
        resolve({ origin: m[1], child });
      }
    });
    child.once('exit', (code) => reject(new Error(`emulator exited ${code}: ${err}`)));
  });
}

async function post(origin, body, encoding) {
  const res = await fetch(`${origin}/trace/agents/otel/v1/traces`, {
    method: 'POST',
    headers: {
      'wandb-api-key': KEY,
      'content-type': 'application/x-protobuf',
      ...(encoding === 'identity' ? {} : { 'content-encoding': encoding }),
    },
    body,
  });
  const answer = await res.json();
  if (res.status !== 200 || answer.rejected_spans)
    throw new Error(`ingest: HTTP ${res.status} ${JSON.stringify(answer)}`);
  return answer.accepted_spans;
}

/**
 * Emulator CPU a span accepted, gzip and plain: `spans` spans in requests of 512, 4 in flight, after
 * a warm-up of a tenth as many (not counted). Linux only (it reads /proc); elsewhere undefined.
 */
export async function measureIngest({ node, bin, env }, { spans = 100_000 } = {}) {
  if (!existsSync('/proc/self/stat')) return undefined;
  const warmup = Math.max(4, Math.round(spans / PER_REQUEST / 10));
  const requests = Math.ceil(spans / PER_REQUEST);
  // Every request its own spans (its own seed): spans sent again are a path of their own.
  const bodies = Array.from({ length: warmup + requests }, (_, i) => agentRequest(i + 1, PER_REQUEST));
  const bytesPerSpan = bodies.reduce((n, b) => n + b.length, 0) / (bodies.length * PER_REQUEST);
  const results = {};
  for (const encoding of ['gzip', 'identity']) {
    const encoded = bodies.map((b) => (encoding === 'gzip' ? gzipSync(b) : b));
    const emu = await startEmulator(node, bin, env);
    try {
      let next = 0;
      const send = async (until) => {
        await Promise.all(
          Array.from({ length: 4 }, async () => {
            while (next < until) await post(emu.origin, encoded[next++], encoding);
          }),
        );
      };
      await send(warmup);
      const before = cpuMicros(emu.child.pid);
      await send(warmup + requests);
      const after = cpuMicros(emu.child.pid);
      const spansSent = requests * PER_REQUEST;
      results[encoding] = {
        microsPerSpan: (after.total - before.total) / spansSent,
        // The kernel's share (system time): reading the socket, and first touches of new memory.
        systemMicrosPerSpan: (after.system - before.system) / spansSent,
        spans: spansSent,
      };
    } finally {
      await new Promise((resolve) => {
        emu.child.removeAllListeners('exit');
        emu.child.once('exit', resolve);
        emu.child.kill('SIGTERM');
      });
    }
  }
  return { bytesPerSpan, ...results };
}

/** Rows for bench/run.mjs: CPU a span, against the absolute target (no yardstick of the same run). */
export function ingestRows(result) {
  if (!result) return [];
  return [
    {
      case: 'emulator trace ingest: CPU a span',
      env: `agent spans (~${Math.round(result.bytesPerSpan)} B of protobuf a span), 512 a request, gzip`,
      ms: result.gzip.microsPerSpan / 1000,
      maxMs: INGEST_TARGET_US / 1000,
    },
    {
      case: 'emulator trace ingest: CPU a span, uncompressed',
      env: 'the same requests without content-encoding',
      ms: result.identity.microsPerSpan / 1000,
      maxMs: INGEST_TARGET_US / 1000,
    },
  ];
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const spans = args.includes('--spans') ? Number(args[args.indexOf('--spans') + 1]) : 100_000;
  const bin = args.includes('--bin') ? args[args.indexOf('--bin') + 1] : join(ROOT, 'bin', 'aip.js');
  if (!existsSync(join(dirname(bin), '..', 'dist', 'main.js')))
    throw new Error('no dist/: run npm run build first');
  const scratch = mkdtempSync(join(tmpdir(), 'aip-bench-ingest-'));
  try {
    const env = { ...process.env, AIP_CONFIG_DIR: scratch, NO_COLOR: '1' };
    delete env.NODE_EXTRA_CA_CERTS;
    const result = await measureIngest({ node: process.execPath, bin, env }, { spans });
    if (!result) console.log('emulator trace ingest: not measured here (no /proc)');
    else
      for (const [encoding, r] of Object.entries(result).filter(([k]) => k !== 'bytesPerSpan'))
        console.log(
          `emulator trace ingest, ${encoding}: ${r.microsPerSpan.toFixed(2)} µs of CPU a span, ${r.systemMicrosPerSpan.toFixed(2)} of it the kernel's (${r.spans.toLocaleString('en-US')} spans, ${Math.round(result.bytesPerSpan)} B a span; target ≤ ${INGEST_TARGET_US} µs)`,
        );
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}
