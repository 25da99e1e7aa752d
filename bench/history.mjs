#!/usr/bin/env node
// The history's cost (issue 33): every command that talks to the platform appends to a journal of its
// own (src/history/recorder.ts, journal.ts), on by default. Measured against the same command with
// AIP_HISTORY=off in the same run, each side with a fresh AIP_DATA_DIR of its own:
//
// - start-up: `aip health --json` and `aip models list --json` against the emulator, as processes,
//   interleaved run by run (the order swapped every pair, so that drift falls on both alike); the time
//   the history adds is the median of the pairwise differences (target: under 1 ms);
// - throughput: `aip rollouts` at concurrency 16 with bench/rollouts.mjs's setup (the same model, the
//   same fixed time per token, the same tasks), off and on interleaved (target: at most 5% more time a
//   rollout); and one run with AIP_HISTORY=bodies (every request and answer kept, logprobs and all),
//   reported without a target;
// - `aip history --json --limit 50` over a journal of 1,000 invocations (folded into the store, then
//   listed), against the same listing once they are folded: reported without a target.
//
//   node bench/history.mjs [--runs N] [--rollout-runs N] [--fold N] [--fold-runs N] [--no-fold]
//                          [--bin path/to/bin/aip.js]
//
// Alone, it starts an emulator of its own (as bench/run.mjs does) and prints its rows; bench/run.mjs
// calls measureHistory with its own emulator.

import { spawnSync } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { median } from './completion.mjs';
import { prepareRollouts, runRollouts, setTokenMs, TASKS, TOKEN_MS, TOKENS } from './rollouts.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const KEY = 'aip-emulator-local-key';
/** What the issue allows the history: under 1 ms of start-up, under 5% of rollouts' time. */
export const STARTUP_TARGET_MS = 1;
export const ROLLOUTS_TARGET = 1.05;
const CONCURRENCY = 16;
const WARMUP = 3;

const journalDir = (dataDir) => join(dataDir, 'history', 'journal');

/** The journal files under a data directory, with their sizes. */
function journalFiles(dataDir) {
  const dir = journalDir(dataDir);
  if (!existsSync(dir)) return [];
  return readdirSync(dir).map((name) => ({ name, bytes: statSync(join(dir, name)).size }));
}

function run(argv, env) {
  const started = performance.now();
  const r = spawnSync(argv[0], argv.slice(1), { env, stdio: ['ignore', 'ignore', 'pipe'] });
  const ms = performance.now() - started;
  if (r.status !== 0) throw new Error(`${argv.join(' ')} exited ${r.status}: ${r.stderr}`);
  return ms;
}

/** A process's wall time and the CPU time it used (all threads, bench/rss.cjs), in ms. */
function runWithCpu(argv, env) {
  const ms = run(argv, env);
  const usage = JSON.parse(readFileSync(env.AIP_BENCH_RSS_FILE, 'utf8'));
  rmSync(env.AIP_BENCH_RSS_FILE);
  return { ms, cpuMs: usage.cpu_us / 1000 };
}

/**
 * One command, history off and on, interleaved run by run (the order swapped every pair), each side
 * with its data directory: the pairwise differences (on − off) and each side's times.
 */
function startupPairs({ node, root, bin }, args, env, { runs, dir }) {
  const off = mkdtempSync(join(dir, 'history-off-'));
  const on = mkdtempSync(join(dir, 'history-on-'));
  // bench/rss.cjs preloaded on both sides: the CPU each process used, besides its wall time.
  const argv = [node, '--require', join(root, 'bench', 'rss.cjs'), bin, ...args];
  const usage = (side) => join(dir, `usage-${side}`);
  const envOff = { ...env, AIP_DATA_DIR: off, AIP_HISTORY: 'off', AIP_BENCH_RSS_FILE: usage('off') };
  const envOn = { ...env, AIP_DATA_DIR: on, AIP_BENCH_RSS_FILE: usage('on') };
  delete envOn.AIP_HISTORY;
  const times = { off: [], on: [], diff: [], cpuOff: [], cpuOn: [], cpuDiff: [] };
  for (let i = 0; i < WARMUP + runs; i++) {
    let offRun;
    let onRun;
    if (i % 2) {
      onRun = runWithCpu(argv, envOn);
      offRun = runWithCpu(argv, envOff);
    } else {
      offRun = runWithCpu(argv, envOff);
      onRun = runWithCpu(argv, envOn);
    }
    if (i < WARMUP) continue;
    times.off.push(offRun.ms);
    times.on.push(onRun.ms);
    times.diff.push(onRun.ms - offRun.ms);
    times.cpuOff.push(offRun.cpuMs);
    times.cpuOn.push(onRun.cpuMs);
    times.cpuDiff.push(onRun.cpuMs - offRun.cpuMs);
  }
  // The history was on where it should be, and off where not: one journal file a process.
  const written = journalFiles(on);
  if (written.length !== WARMUP + runs)
    throw new Error(`${args.join(' ')}: ${written.length} journal files, not ${WARMUP + runs}`);
  if (journalFiles(off).length) throw new Error(`${args.join(' ')}: a journal with AIP_HISTORY=off`);
  const bytes = median(written.map((f) => f.bytes));
  rmSync(off, { recursive: true, force: true });
  rmSync(on, { recursive: true, force: true });
  return {
    added: median(times.diff),
    off: median(times.off),
    on: median(times.on),
    // The spread of the differences: how far one pair is from another.
    diffP25: quantile(times.diff, 0.25),
    diffP75: quantile(times.diff, 0.75),
    cpuAdded: median(times.cpuDiff),
    cpuOff: median(times.cpuOff),
    cpuOn: median(times.cpuOn),
    cpuDiffP25: quantile(times.cpuDiff, 0.25),
    cpuDiffP75: quantile(times.cpuDiff, 0.75),
    journalBytes: bytes,
  };
}

function quantile(values, q) {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (sorted.length - 1) * q;
  const lo = Math.floor(at);
  return sorted[lo] + (sorted[Math.min(lo + 1, sorted.length - 1)] - sorted[lo]) * (at - lo);
}

/** Rollouts at concurrency 16, history off and on, interleaved; and one run with bodies. */
async function rolloutsRuns(workload, { rolloutRuns, dir }) {
  const { origin, key } = workload;
  const setup = await prepareRollouts(workload);
  await setTokenMs(origin, key, TOKEN_MS);
  try {
    const count = TASKS[CONCURRENCY];
    const once = (mode) => {
      const data = mkdtempSync(join(dir, `history-rollouts-${mode}-`));
      // On is the default (AIP_HISTORY unset: no settings file in a fresh data directory, no bodies).
      const extra = { AIP_DATA_DIR: data, AIP_HISTORY: mode === 'on' ? undefined : mode };
      const result = runRollouts(
        workload,
        setup,
        `history-${mode}`,
        count,
        CONCURRENCY,
        ['--reward', 'contains'],
        extra,
      );
      const files = journalFiles(data);
      if (mode === 'off' ? files.length !== 0 : files.length !== 1)
        throw new Error(`aip rollouts, AIP_HISTORY=${mode}: ${files.length} journal files`);
      const text = files.length ? readFileSync(join(journalDir(data), files[0].name), 'utf8') : '';
      const lines = text.split('\n').filter(Boolean);
      rmSync(data, { recursive: true, force: true });
      return {
        ...result,
        journalBytes: files[0]?.bytes ?? 0,
        usageEvents: lines.filter((l) => l.startsWith('{"k":"usage"')).length,
        bodyEvents: lines.filter((l) => l.startsWith('{"k":"body"')).length,
      };
    };
    // One run unmeasured: the first of a series pays for cold caches.
    once('off');
    const off = [];
    const on = [];
    for (let i = 0; i < rolloutRuns; i++) {
      // off, on, on, off, off, on, …: pairs in both orders, so that drift falls on both alike.
      if (i % 2) {
        on.push(once('on'));
        off.push(once('off'));
      } else {
        off.push(once('off'));
        on.push(once('on'));
      }
    }
    const bodies = once('bodies');
    return { off, on, bodies, tasks: count };
  } finally {
    await setTokenMs(origin, key, 0);
  }
}

/**
 * `count` finished journal files made from real ones (a `models list` and a small `rollouts`, written
 * by this aip with the history on): every tenth a rollouts run with its usage events, each with a run
 * id and a file name of its own.
 */
function journalFixture(workload, setup, { count, dir }) {
  const seed = mkdtempSync(join(dir, 'history-seed-'));
  const env = { ...setup.cliEnv, AIP_DATA_DIR: seed };
  delete env.AIP_HISTORY;
  const list = spawnSync(workload.node, [workload.bin, 'models', 'list', '--json'], { env, stdio: 'ignore' });
  if (list.status !== 0) throw new Error('models list (history seed) failed');
  const [listFile] = journalFiles(seed);
  runRollouts(workload, setup, 'history-seed', 4, 4, ['--reward', 'contains'], { AIP_DATA_DIR: seed });
  const rolloutFile = journalFiles(seed).find((f) => f.name !== listFile.name);
  const read = (f) => readFileSync(join(journalDir(seed), f.name), 'utf8');
  const templates = [read(listFile), read(rolloutFile)];
  const runOf = (text) => JSON.parse(text.slice(0, text.indexOf('\n'))).run;
  // <epochMs>-<pid>-<hostTag>-<random>.jsonl: the pid (of a process now gone) and the host kept.
  const [, pid, host] = /^\d+-(\d+)-([0-9a-f]{8})-/.exec(listFile.name);
  const fixture = mkdtempSync(join(dir, 'history-fixture-'));
  const out = journalDir(fixture);
  mkdirSync(out, { recursive: true });
  const start = Date.now() - count * 1000;
  let bytes = 0;
  let usage = 0;
  for (let i = 0; i < count; i++) {
    const template = templates[i % 10 === 9 ? 1 : 0];
    const run = `${(start + i * 1000).toString(36)}-${Number(pid).toString(36)}-b${i.toString(36)}`;
    const text = template.replaceAll(runOf(template), run);
    usage += text.split('\n').filter((l) => l.startsWith('{"k":"usage"')).length;
    bytes += Buffer.byteLength(text);
    const name = `${start + i * 1000}-${pid}-${host}-${i.toString(16).padStart(6, '0')}.jsonl`;
    writeFileSync(join(out, name), text, { mode: 0o600 });
  }
  rmSync(seed, { recursive: true, force: true });
  return { dir: fixture, bytes, usage };
}

/** `aip history --json --limit 50` folding `count` journal files, against the same listing once folded. */
function foldRuns(workload, setup, { count, runs, dir }) {
  const fixture = journalFixture(workload, setup, { count, dir });
  const argv = [workload.node, workload.bin, 'history', '--json', '--limit', '50'];
  const fold = [];
  const list = [];
  try {
    for (let i = 0; i < 1 + runs; i++) {
      const data = mkdtempSync(join(dir, 'history-fold-'));
      cpSync(join(fixture.dir, 'history'), join(data, 'history'), { recursive: true });
      const env = { ...setup.cliEnv, AIP_DATA_DIR: data };
      const foldMs = run(argv, env);
      if (journalFiles(data).length) throw new Error('aip history left journal files unfolded');
      const listMs = run(argv, env);
      const shown = JSON.parse(spawnSync(argv[0], argv.slice(1), { env, encoding: 'utf8' }).stdout);
      if (shown.length !== 50) throw new Error(`aip history --limit 50 listed ${shown.length}`);
      rmSync(data, { recursive: true, force: true });
      if (i === 0) continue;
      fold.push(foldMs);
      list.push(listMs);
    }
  } finally {
    rmSync(fixture.dir, { recursive: true, force: true });
  }
  return { fold: median(fold), list: median(list), count, bytes: fixture.bytes, usage: fixture.usage, runs };
}

/**
 * The history's rows, as bench/run.mjs takes them ({ case, env, ms, baseline, baselineMs, target,
 * maxMs, unit }; target null: reported, no target), its details for the JSON, and notes. `workload`:
 * { node, root, bin, origin, key, env, dir }, env without AIP_BASE_URL and the like.
 */
export async function measureHistory(
  given,
  { runs = 41, rolloutRuns = 5, fold = 1000, foldRunCount = 3 } = {},
) {
  const dir = mkdtempSync(join(given.dir, 'history-'));
  // What the setup runs (models create) keeps its history here, not in the user's data directory.
  const workload = { ...given, env: { ...given.env, AIP_DATA_DIR: join(dir, 'setup-data') }, dir };
  delete workload.env.AIP_HISTORY;
  const { origin, key, env } = workload;
  const notes = [];
  const rows = [];
  try {
    const cliEnv = {
      ...env,
      AIP_BASE_URL: `${origin}/training/v1`,
      AIP_INFERENCE_URL: `${origin}/inference/v1`,
      AIP_TRACE_URL: `${origin}/trace`,
      AIP_API_KEY: key,
    };
    // A build from before the history writes no journal: nothing to measure (a note says so).
    const probe = mkdtempSync(join(dir, 'history-probe-'));
    const probed = spawnSync(workload.node, [workload.bin, 'models', 'list', '--json'], {
      env: { ...cliEnv, AIP_DATA_DIR: probe },
      stdio: 'ignore',
    });
    if (probed.status !== 0) throw new Error('aip models list (history probe) failed');
    if (journalFiles(probe).length === 0) {
      notes.push(
        `the history: not measured (${workload.bin} writes no history journal: a build from before it?)`,
      );
      return { rows, details: {}, notes };
    }
    const startup = {};
    for (const args of [
      ['health', '--json'],
      ['models', 'list', '--json'],
    ]) {
      const name = `aip ${args.join(' ')}`;
      const s = startupPairs(workload, args, cliEnv, { runs, dir });
      startup[name] = s;
      rows.push({
        case: `${name}: start-up the history adds`,
        env: `median of ${runs} on−off pairs (off ${s.off.toFixed(1)} ms, on ${s.on.toFixed(1)} ms)`,
        ms: s.added,
        baseline: 'the target',
        baselineMs: STARTUP_TARGET_MS,
        maxMs: STARTUP_TARGET_MS,
        unit: 'ms',
      });
      // The same pairs' CPU time (user + system, all threads): what contention for the CPUs moves less.
      rows.push({
        case: `${name}: CPU the history adds`,
        env: `median of the same pairs (off ${s.cpuOff.toFixed(1)} ms, on ${s.cpuOn.toFixed(1)} ms)`,
        ms: s.cpuAdded,
        baseline: 'the target',
        baselineMs: STARTUP_TARGET_MS,
        maxMs: STARTUP_TARGET_MS,
        unit: 'ms',
      });
    }
    const details = {
      startup: Object.fromEntries(
        Object.entries(startup).map(([name, s]) => [
          name,
          {
            runs,
            added_ms: +s.added.toFixed(2),
            added_ms_p25: +s.diffP25.toFixed(2),
            added_ms_p75: +s.diffP75.toFixed(2),
            cpu_added_ms: +s.cpuAdded.toFixed(2),
            cpu_added_ms_p25: +s.cpuDiffP25.toFixed(2),
            cpu_added_ms_p75: +s.cpuDiffP75.toFixed(2),
            off_ms: +s.off.toFixed(1),
            on_ms: +s.on.toFixed(1),
            journal_bytes: s.journalBytes,
          },
        ]),
      ),
    };
    if (rolloutRuns > 0) {
      const r = await rolloutsRuns(workload, { rolloutRuns, dir });
      const rate = (list) => median(list.map((x) => x.rate));
      const offRate = rate(r.off);
      const onRate = rate(r.on);
      const what = `${r.off[0].rollouts} rollouts of ${TOKENS} tokens × ${TOKEN_MS} ms, ${rolloutRuns} runs each`;
      rows.push({
        case: `aip rollouts: concurrency ${CONCURRENCY}, history on`,
        env: what,
        ms: 1000 / onRate,
        baseline: 'AIP_HISTORY=off',
        baselineMs: 1000 / offRate,
        target: ROLLOUTS_TARGET,
      });
      rows.push({
        case: `aip rollouts: concurrency ${CONCURRENCY}, AIP_HISTORY=bodies`,
        env: `1 run, ${(r.bodies.journalBytes / 1e6).toFixed(1)} MB of journal`,
        ms: 1000 / r.bodies.rate,
        baseline: 'AIP_HISTORY=off',
        baselineMs: 1000 / offRate,
        target: null,
      });
      const cpu = (list) => median(list.map((x) => x.cpuUsPerRollout));
      details.rollouts = {
        concurrency: CONCURRENCY,
        rollouts: r.off[0].rollouts,
        runs: rolloutRuns,
        off_per_second: r.off.map((x) => +x.rate.toFixed(1)),
        on_per_second: r.on.map((x) => +x.rate.toFixed(1)),
        bodies_per_second: +r.bodies.rate.toFixed(1),
        on_share_of_off: +(onRate / offRate).toFixed(3),
        bodies_share_of_off: +(r.bodies.rate / offRate).toFixed(3),
        cpu_us_per_rollout: {
          off: Math.round(cpu(r.off)),
          on: Math.round(cpu(r.on)),
          bodies: Math.round(r.bodies.cpuUsPerRollout),
        },
        journal_bytes: { on: r.on[0].journalBytes, bodies: r.bodies.journalBytes },
        events: { usage: r.on[0].usageEvents, body: r.bodies.bodyEvents },
      };
    }
    if (fold) {
      const help = spawnSync(workload.node, [workload.bin, 'history', '--help'], { env, encoding: 'utf8' });
      if (help.status !== 0) notes.push('aip history: not measured (no history command in this build)');
      else {
        const setup = await prepareRollouts(workload);
        const f = foldRuns(workload, setup, { count: fold, runs: foldRunCount, dir });
        const many = f.count.toLocaleString('en-US');
        rows.push({
          case: `aip history --json --limit 50: fold ${many} journal files, then list`,
          env: `${many} invocations, ${f.usage.toLocaleString('en-US')} usage events, ${(f.bytes / 1e6).toFixed(1)} MB`,
          ms: f.fold,
          baseline: 'the same, already folded',
          baselineMs: f.list,
          target: null,
        });
        details.fold = {
          invocations: f.count,
          usage_events: f.usage,
          journal_bytes: f.bytes,
          runs: f.runs,
          fold_and_list_ms: Math.round(f.fold),
          list_ms: Math.round(f.list),
        };
      }
    }
    return { rows, details, notes };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const opt = (name, fallback) => (args.includes(name) ? Number(args[args.indexOf(name) + 1]) : fallback);
  const bin = args.includes('--bin') ? args[args.indexOf('--bin') + 1] : join(ROOT, 'bin', 'aip.js');
  const node = process.execPath;
  const scratch = mkdtempSync(join(tmpdir(), 'aip-bench-history-'));
  const env = { ...process.env, AIP_CONFIG_DIR: scratch, NO_COLOR: '1' };
  delete env.NODE_EXTRA_CA_CERTS;
  delete env.AIP_HISTORY;
  // The emulator's own commands are never recorded; its data directory is the scratch one all the same.
  const emuEnv = { ...env, AIP_DATA_DIR: join(scratch, 'emulator-data') };
  const started = spawnSync(
    node,
    [bin, 'emulator', '--detach', '--port', '0', '--token-ms', '10', '--ephemeral', '--json'],
    { env: emuEnv, encoding: 'utf8' },
  );
  if (started.status !== 0) throw new Error(`emulator did not start: ${started.stderr}`);
  const { origin } = JSON.parse(started.stdout);
  try {
    const result = await measureHistory(
      { node, root: ROOT, bin, origin, key: KEY, env, dir: scratch },
      {
        runs: opt('--runs', 41),
        rolloutRuns: opt('--rollout-runs', 5),
        fold: args.includes('--no-fold') ? 0 : opt('--fold', 1000),
        foldRunCount: opt('--fold-runs', 3),
      },
    );
    for (const r of result.rows) {
      const ratio = r.ms / r.baselineMs;
      const unit = r.unit ?? 'ms';
      const target =
        r.maxMs !== undefined ? `<= ${r.maxMs} ${unit}` : r.target === null ? 'none' : `<= ${r.target}x`;
      const met = r.maxMs !== undefined ? r.ms <= r.maxMs : r.target === null ? undefined : ratio <= r.target;
      console.log(
        `${r.case} | ${r.env} | ${r.ms.toFixed(2)} ${unit} | ${r.baseline} ${r.baselineMs.toFixed(2)} ${unit} | ${ratio.toFixed(2)}x | ${target} | ${met === undefined ? '-' : met ? 'yes' : 'NO'}`,
      );
    }
    for (const note of result.notes) console.log(`note: ${note}`);
    console.log(JSON.stringify(result.details, null, 2));
  } finally {
    spawnSync(node, [bin, 'emulator', 'stop'], { env: emuEnv });
    rmSync(scratch, { recursive: true, force: true });
  }
}
