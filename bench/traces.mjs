// `aip traces send` throughput and memory (product.md section 7): a generated OTLP/JSON Lines file
// sent to the emulator, against the official OpenTelemetry JS OTLP protobuf exporter sending the same
// spans to the same emulator in the same run (otel-exporter.mjs), the client's CPU per span, and peak
// memory for three file sizes up to about 1 GB (it should not grow with the file), with the throughput
// at the larger ones.

import { spawnSync } from 'node:child_process';
import { readFileSync, rmSync, statSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

function check(r, what) {
  if (r.status !== 0) throw new Error(`${what} exited ${r.status}: ${r.stderr}`);
  return r;
}

export function measureTraces({
  node,
  root,
  bin,
  origin,
  key,
  env,
  dir,
  spans,
  largeSpans,
  hugeSpans,
  runs,
}) {
  const aip = (args, extraEnv = {}) =>
    spawnSync(node, ['--require', join(root, 'bench', 'rss.cjs'), bin, ...args], {
      env: { ...env, ...extraEnv },
      encoding: 'utf8',
      maxBuffer: 64 * 1024 * 1024,
    });
  // A fresh connection each time: between sends the emulator closes idle ones (keep-alive 5 s).
  const reset = () =>
    new Promise((resolve, reject) => {
      const req = request(
        `${origin}/_emulator/reset`,
        { method: 'POST', agent: false, headers: { authorization: `Bearer ${key}` } },
        (res) => {
          if (res.statusCode !== 200) reject(new Error(`emulator reset answered ${res.statusCode}`));
          res.resume();
          res.on('end', resolve);
        },
      );
      req.on('error', reject);
      req.end();
    });
  const file = join(dir, 'spans.jsonl');
  check(aip(['traces', 'generate', '--spans', String(spans), '-o', file]), 'traces generate');
  const rssFile = join(dir, 'rss');
  const sendEnv = {
    AIP_TRACE_URL: `${origin}/trace`,
    AIP_API_KEY: key,
    AIP_PROJECT: 'bench/traces',
    AIP_BENCH_RSS_FILE: rssFile,
  };

  /** One send: wall seconds (process start to exit) and peak memory. */
  const send = async (path, flags = []) => {
    await reset();
    const started = performance.now();
    const r = check(aip(['traces', 'send', path, '--json', ...flags], sendEnv), 'traces send');
    const seconds = (performance.now() - started) / 1000;
    const summary = JSON.parse(r.stdout);
    if (summary.accepted !== summary.spans && !summary.dry_run)
      throw new Error(`only ${summary.accepted} of ${summary.spans} accepted`);
    const usage = JSON.parse(readFileSync(rssFile, 'utf8'));
    return { seconds, rss: usage.rss, cpuUs: usage.cpu_us, spans: summary.spans, workers: summary.workers };
  };
  const exporter = async (path = file) => {
    await reset();
    const r = check(
      spawnSync(
        node,
        [join(root, 'bench', 'otel-exporter.mjs'), path, `${origin}/trace`, key, 'bench/traces'],
        {
          env,
          encoding: 'utf8',
        },
      ),
      'otel-exporter',
    );
    return JSON.parse(r.stdout);
  };

  return (async () => {
    const aipRuns = [];
    const exporterRuns = [];
    for (let i = 0; i < runs; i++) {
      aipRuns.push(await send(file));
      exporterRuns.push(await exporter());
    }
    const small = median(aipRuns.map((r) => r.rss));
    // One file at a time on disk: the largest is about 1 GB.
    const once = async (count) => {
      const path = join(dir, `spans-${count}.jsonl`);
      check(aip(['traces', 'generate', '--spans', String(count), '-o', path]), 'traces generate');
      const run = { ...(await send(path)), fileMb: statSync(path).size / 1e6 };
      rmSync(path, { force: true });
      return run;
    };
    const agent = await agentSpans({ aip, send, exporter, dir, spans, runs });
    const largeRun = await once(largeSpans);
    const hugeRun = await once(hugeSpans);
    const result = {
      spans,
      fileMb: statSync(file).size / 1e6,
      workers: aipRuns[0].workers,
      aipSeconds: median(aipRuns.map((r) => r.seconds)),
      exporterSeconds: median(exporterRuns.map((r) => r.seconds)),
      exporterFromFileSeconds: median(exporterRuns.map((r) => r.seconds + r.build_seconds)),
      exporterRssMb: median(exporterRuns.map((r) => r.max_rss_mb)),
      rssMb: small / 1024 / 1024,
      // The whole process's CPU (every thread, start-up included) per span sent.
      cpuUsPerSpan: median(aipRuns.map((r) => r.cpuUs / r.spans)),
      largeSpans,
      largeFileMb: largeRun.fileMb,
      largeRssMb: largeRun.rss / 1024 / 1024,
      largeSeconds: largeRun.seconds,
      largeCpuUsPerSpan: largeRun.cpuUs / largeRun.spans,
      hugeSpans,
      hugeFileMb: hugeRun.fileMb,
      hugeRssMb: hugeRun.rss / 1024 / 1024,
      hugeSeconds: hugeRun.seconds,
      agent,
    };
    rmSync(file, { force: true });
    await reset();
    return result;
  })();
}

/**
 * Spans shaped like a GenAI agent's (`traces generate --shape agent`, ~1.3 KB a span): aip's CPU a
 * span against the exporter's export phase on the same spans; and end to end, the time of reading
 * alone (--dry-run), of reading then sending (the default: nothing is sent before all is checked), and
 * of --stream, which sends as it reads and so should take about the slower of its two halves.
 */
async function agentSpans({ aip, send, exporter, dir, spans, runs }) {
  const file = join(dir, 'agent-spans.jsonl');
  check(
    aip([
      'traces',
      'generate',
      '--spans',
      String(spans),
      '--shape',
      'agent',
      '--routing',
      'bench/traces',
      '-o',
      file,
    ]),
    'traces generate --shape agent',
  );
  const dry = [];
  const whole = [];
  const stream = [];
  const exporterRuns = [];
  for (let i = 0; i < runs; i++) {
    dry.push(await send(file, ['--dry-run']));
    whole.push(await send(file));
    stream.push(await send(file, ['--stream']));
    exporterRuns.push(await exporter(file));
  }
  const bytesPerSpan = statSync(file).size / spans;
  rmSync(file, { force: true });
  const readSeconds = median(dry.map((r) => r.seconds));
  const wholeSeconds = median(whole.map((r) => r.seconds));
  return {
    spans,
    bytesPerSpan: Math.round(bytesPerSpan),
    cpuUsPerSpan: median(whole.map((r) => r.cpuUs / r.spans)),
    streamCpuUsPerSpan: median(stream.map((r) => r.cpuUs / r.spans)),
    exporterCpuUsPerSpan: median(exporterRuns.map((r) => r.export_cpu_us / r.spans)),
    readSeconds,
    wholeSeconds,
    // Sending alone: what reading then sending took beyond the reading.
    uploadSeconds: Math.max(0, wholeSeconds - readSeconds),
    streamSeconds: median(stream.map((r) => r.seconds)),
    rssMb: Math.max(...whole.map((r) => r.rss), ...stream.map((r) => r.rss)) / 1024 / 1024,
  };
}
