// `aip traces send` throughput and memory (product.md section 7): a generated OTLP/JSON Lines file
// sent to the emulator, against the official OpenTelemetry JS OTLP protobuf exporter sending the same
// spans to the same emulator in the same run (otel-exporter.mjs), and peak memory for two file sizes
// (it should not grow with the file), with the throughput at the larger size.

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

export function measureTraces({ node, root, bin, origin, key, env, dir, spans, largeSpans, runs }) {
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
  const send = async (path) => {
    await reset();
    const started = performance.now();
    const r = check(aip(['traces', 'send', path, '--json'], sendEnv), 'traces send');
    const seconds = (performance.now() - started) / 1000;
    const summary = JSON.parse(r.stdout);
    if (summary.accepted !== summary.spans)
      throw new Error(`only ${summary.accepted} of ${summary.spans} accepted`);
    return { seconds, rss: JSON.parse(readFileSync(rssFile, 'utf8')).rss, workers: summary.workers };
  };
  const exporter = async () => {
    await reset();
    const r = check(
      spawnSync(
        node,
        [join(root, 'bench', 'otel-exporter.mjs'), file, `${origin}/trace`, key, 'bench/traces'],
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
    const large = join(dir, 'spans-large.jsonl');
    check(aip(['traces', 'generate', '--spans', String(largeSpans), '-o', large]), 'traces generate');
    const largeRun = await send(large);
    const result = {
      spans,
      fileMb: statSync(file).size / 1e6,
      workers: aipRuns[0].workers,
      aipSeconds: median(aipRuns.map((r) => r.seconds)),
      exporterSeconds: median(exporterRuns.map((r) => r.seconds)),
      exporterFromFileSeconds: median(exporterRuns.map((r) => r.seconds + r.build_seconds)),
      exporterRssMb: median(exporterRuns.map((r) => r.max_rss_mb)),
      rssMb: small / 1024 / 1024,
      largeSpans,
      largeFileMb: statSync(large).size / 1e6,
      largeRssMb: largeRun.rss / 1024 / 1024,
      largeSeconds: largeRun.seconds,
    };
    rmSync(file, { force: true });
    rmSync(large, { force: true });
    await reset();
    return result;
  })();
}
