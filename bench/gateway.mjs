#!/usr/bin/env node
// `aip traces serve` (issue 34): the official OpenTelemetry JS exporter (bench/gateway-load.mjs) as
// the load, exporting through the gateway to the emulator's trace ingest, against the same exporter
// sending to the emulator directly, in the same run, interleaved run by run (target: the gateway adds
// no more than 25% to the exporter's own time); and the gateway's peak memory (VmHWM) for a load and
// five times that load, each in a fresh gateway: it should stay flat as the load grows (target: the
// larger at most 1.5 times the smaller).
//
//   node bench/gateway.mjs [--spans N] [--runs N] [--bin path/to/bin/aip.js]
//
// Alone, it starts an emulator of its own and prints its rows; bench/run.mjs calls measureGateway.

import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { median } from './completion.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const LOAD = join(ROOT, 'bench', 'gateway-load.mjs');
const PROJECT = { entity: 'bench', project: 'gateway' };

function load(node, url, spans, headers = {}, resource = {}) {
  const r = spawnSync(node, [LOAD, url, String(spans), JSON.stringify(headers), JSON.stringify(resource)], {
    encoding: 'utf8',
    cwd: ROOT,
  });
  if (r.status !== 0) throw new Error(`the exporter's load failed: ${r.stderr}`);
  const result = JSON.parse(r.stdout);
  if (result.failed) throw new Error(`${result.failed} spans failed to export to ${url}`);
  return result;
}

/** A gateway of its own (spool and data in `dir`), once it listens. */
function startGateway({ node, bin, env, origin, key }, dir) {
  const child = spawn(node, [bin, 'traces', 'serve', '--port', '0', '--json'], {
    env: {
      ...env,
      AIP_DATA_DIR: mkdtempSync(join(dir, 'gateway-data-')),
      AIP_BASE_URL: `${origin}/training/v1`,
      AIP_INFERENCE_URL: `${origin}/inference/v1`,
      AIP_TRACE_URL: `${origin}/trace`,
      AIP_API_KEY: key,
      AIP_PROJECT: `${PROJECT.entity}/${PROJECT.project}`,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  const exited = new Promise((resolve) => child.on('exit', resolve));
  return new Promise((resolve, reject) => {
    child.stderr.on('data', (d) => {
      stderr += d;
      const m = /Listening on (http:\/\/127\.0\.0\.1:\d+)\//.exec(stderr);
      if (m)
        resolve({
          url: `${m[1]}/v1/traces`,
          peakMb: () => {
            const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
            return Number(/VmHWM:\s+(\d+) kB/.exec(status)?.[1] ?? Number.NaN) / 1024;
          },
          stop: async () => {
            child.kill('SIGINT');
            await exited;
            return JSON.parse(stdout);
          },
        });
    });
    child.on('exit', (code) => reject(new Error(`the gateway exited ${code}: ${stderr}`)));
  });
}

/**
 * Rows as bench/run.mjs takes them. `workload`: { node, bin, env, origin, key, dir }: an emulator at
 * `origin` that takes `key`.
 */
export async function measureGateway(workload, { spans = 20_000, runs = 5 } = {}) {
  const { node, origin, key, dir } = workload;
  const direct = `${origin}/trace/agents/otel/v1/traces`;
  const auth = { authorization: `Basic ${Buffer.from(`api:${key}`).toString('base64')}` };
  const routing = { 'wandb.entity': PROJECT.entity, 'wandb.project': PROJECT.project };
  const gateway = await startGateway(workload, dir);
  const times = { direct: [], gateway: [] };
  try {
    // Both paths warmed up with a whole load first: the gateway's first is spent compiling its code.
    load(node, direct, spans, auth, routing);
    load(node, gateway.url, spans);
    for (let i = 0; i < runs; i++) {
      const order = i % 2 ? ['gateway', 'direct'] : ['direct', 'gateway'];
      for (const side of order) {
        const r =
          side === 'direct' ? load(node, direct, spans, auth, routing) : load(node, gateway.url, spans);
        times[side].push(r.seconds * 1000);
      }
    }
  } catch (error) {
    await gateway.stop();
    throw error;
  }
  const counters = await gateway.stop();
  if (counters.spooled || counters.dropped || counters.refused)
    throw new Error(`the gateway did not forward everything: ${JSON.stringify(counters)}`);
  const peaks = [];
  for (const n of [spans, spans * 5]) {
    const fresh = await startGateway(workload, dir);
    try {
      load(node, fresh.url, n);
      peaks.push(fresh.peakMb());
    } finally {
      await fresh.stop();
    }
  }
  const rows = [
    {
      case: 'aip traces serve: the official exporter through the gateway',
      env: `${spans.toLocaleString('en-US')} spans, batches of 512, median of ${runs}`,
      ms: median(times.gateway),
      baseline: 'the same exporter to the emulator directly',
      baselineMs: median(times.direct),
      target: 1.25,
    },
    {
      case: 'aip traces serve: peak memory (VmHWM) at 5x the load',
      env: `${(spans * 5).toLocaleString('en-US')} spans, a fresh gateway`,
      ms: peaks[1],
      baseline: `at ${spans.toLocaleString('en-US')} spans`,
      baselineMs: peaks[0],
      target: 1.5,
      unit: 'MB',
    },
  ];
  const rate = (ms) => Math.round(spans / (ms / 1000)).toLocaleString('en-US');
  const notes = [
    `gateway: ${rate(median(times.gateway))} spans/s through it, ${rate(median(times.direct))} spans/s directly; peak ${peaks.map((p) => p.toFixed(0)).join(' / ')} MB`,
  ];
  return { rows, notes, times, peaks };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const opt = (name, fallback) => (args.includes(name) ? Number(args[args.indexOf(name) + 1]) : fallback);
  const bin = args.includes('--bin') ? args[args.indexOf('--bin') + 1] : join(ROOT, 'bin', 'aip.js');
  const dir = mkdtempSync(join(tmpdir(), 'aip-bench-gateway-'));
  const env = { ...process.env, AIP_CONFIG_DIR: dir, AIP_DATA_DIR: join(dir, 'data'), NO_COLOR: '1' };
  const started = spawnSync(
    process.execPath,
    [bin, 'emulator', '--detach', '--port', '0', '--ephemeral', '--json'],
    {
      env,
      encoding: 'utf8',
    },
  );
  if (started.status !== 0) throw new Error(`emulator did not start: ${started.stderr}`);
  const { origin } = JSON.parse(started.stdout);
  try {
    const result = await measureGateway(
      { node: process.execPath, bin, env, origin, key: 'aip-emulator-local-key', dir },
      { spans: opt('--spans', 20_000), runs: opt('--runs', 5) },
    );
    for (const r of result.rows)
      console.log(
        `${r.case} (${r.env}): ${r.ms.toFixed(1)} ${r.unit ?? 'ms'} against ${r.baselineMs.toFixed(1)} (${r.baseline}): ${(r.ms / r.baselineMs).toFixed(2)}x, target <= ${r.target}x`,
      );
    for (const n of result.notes) console.log(n);
  } finally {
    spawnSync(process.execPath, [bin, 'emulator', 'stop'], { env });
    rmSync(dir, { recursive: true, force: true });
  }
}
