// The durable emulator's costs, for each SQLite binding it can keep its state with on this Node
// (node:sqlite where Node has it, node-sqlite3-wasm everywhere; src/lib/sqlite/choose-sqlite.ts),
// and for better-sqlite3, the native binding of earlier versions, measured the same way for comparison:
// how long `aip emulator` takes to listen with an empty state directory and with one holding 10,000
// finished jobs (their events and checkpoints), and how many creates a second it answers (models, and
// jobs) with its state written through to disk, against --ephemeral in the same run.
//
// better-sqlite3 is no dependency of aip's: it is installed on demand (once per Node ABI, it compiles
// where no prebuilt binary fits) into .cache/bench-better-sqlite3/ of the checkout, git-ignored, and
// handed to the emulator as a binding module through AIP_EMULATOR_SQLITE. Where it cannot be
// installed, it is left out with a note.
//
//   node bench/emulator.mjs [--jobs N] [--runs N] [--no-better-sqlite3] [--bin bin/aip.js]
//                                                     this part alone (npm run build first), with the
//                                                     issue's rows (emulatorRows) and paging at depth

import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const KEY = 'aip-emulator-local-key';
const GROUPS = [{ trajectories: [{ reward: 1, messages_and_choices: [{ role: 'user', content: 'hi' }] }] }];
const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const BETTER_SQLITE3 = 'better-sqlite3@12.11.1';

/** `aip emulator` in the foreground; resolves once it listens, with its origin and the time taken. */
function startForeground({ node, bin, env }, args, extraEnv = {}) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(node, [bin, 'emulator', '--port', '0', '--step-ms', '1', ...args], {
      env: { ...env, ...extraEnv },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let err = '';
    child.stderr.on('data', (d) => {
      err += d;
      const m = /listening on (http:\/\/[\d.]+:\d+)/.exec(err);
      if (m) {
        child.stderr.removeAllListeners('data');
        child.stderr.resume();
        resolve({ origin: m[1], ms: performance.now() - started, stop: () => stopChild(child) });
      }
    });
    child.once('exit', (code) => reject(new Error(`emulator exited ${code}: ${err}`)));
  });
}

function stopChild(child) {
  return new Promise((resolve) => {
    child.removeAllListeners('exit');
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

async function post(origin, path, body) {
  const res = await fetch(`${origin}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (res.status !== 200) throw new Error(`POST ${path}: HTTP ${res.status} ${await res.text()}`);
  return res.json();
}

/** `total` creates, `concurrency` at a time; requests per second. */
async function creates(total, concurrency, make) {
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < total) await make(next++);
    }),
  );
  return total / ((performance.now() - started) / 1000);
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

const newModel = (origin, name) =>
  post(origin, '/training/v1/preview/models', {
    project: 'bench',
    name,
    base_model: 'OpenPipe/Qwen3-14B-Instruct',
  });
const newJob = (origin, modelId) =>
  post(origin, '/training/v1/preview/training-jobs', { model_id: modelId, trajectory_groups: GROUPS });

/**
 * A SqliteBinding (src/lib/sqlite/sqlite-driver.ts) over better-sqlite3: the store adds its
 * transactions to it as it does to aip's own.
 */
const BETTER_SQLITE3_BINDING = `// Written by bench/emulator.mjs: better-sqlite3 as a binding of the emulator's durable store.
const Database = require('better-sqlite3');
module.exports = {
  name: ${JSON.stringify(BETTER_SQLITE3)},
  osLock: true,
  open(file) {
    const db = new Database(file);
    return {
      exec: (sql) => void db.exec(sql),
      prepare(sql) {
        const statement = db.prepare(sql);
        return {
          run: (...params) => void statement.run(...params),
          all: (...params) => statement.all(...params),
          get: (...params) => statement.get(...params),
        };
      },
      close: () => db.close(),
    };
  },
};
`;

/**
 * better-sqlite3 as a binding module for AIP_EMULATOR_SQLITE, installed once per Node ABI (its binary
 * is built for one), or a note saying why not.
 */
function betterSqlite3Binding(node) {
  const abi = spawnSync(node, ['-p', 'process.versions.modules'], { encoding: 'utf8' }).stdout.trim();
  const dir = join(ROOT, '.cache', 'bench-better-sqlite3', `abi-${abi}`);
  const binding = join(dir, 'binding.cjs');
  const loads = () =>
    spawnSync(node, [
      '-e',
      `new (require(${JSON.stringify(join(dir, 'node_modules', 'better-sqlite3'))}))(':memory:')`,
    ]).status === 0;
  if (!loads()) {
    console.error(
      `bench: installing ${BETTER_SQLITE3} into ${dir} (once for this Node's ABI ${abi}; it may compile)`,
    );
    // A copy that does not load (built for another Node) is replaced, not kept by npm as installed.
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    // Built for this Node: its scripts run with it, and compile against its own headers where its
    // distribution has them (npm's nodedir may name another Node's).
    const home = join(dirname(node), '..');
    const env = { ...process.env, PATH: `${dirname(node)}${delimiter}${process.env.PATH ?? ''}` };
    if (existsSync(join(home, 'include', 'node', 'node_version.h'))) env.npm_config_nodedir = home;
    const npm = spawnSync(
      process.platform === 'win32' ? 'npm.cmd' : 'npm',
      [
        'install',
        '--no-save',
        '--no-package-lock',
        '--no-audit',
        '--no-fund',
        '--prefix',
        dir,
        BETTER_SQLITE3,
      ],
      { encoding: 'utf8', shell: process.platform === 'win32', env },
    );
    if (npm.status !== 0 || !loads()) {
      const why = (npm.stderr || npm.error?.message || '').trim().split('\n').at(-1) || 'it does not load';
      return { note: `${BETTER_SQLITE3} left out: it could not be installed here (${why})` };
    }
  }
  writeFileSync(binding, BETTER_SQLITE3_BINDING);
  return { binding };
}

/** The bindings to measure: aip's own that this Node has (its default first), then better-sqlite3. */
function bindings(node, { withBetterSqlite3 = true } = {}) {
  const hasNodeSqlite =
    spawnSync(node, ['-e', "process.exit(process.getBuiltinModule?.('node:sqlite') ? 0 : 1)"]).status === 0;
  const list = [
    ...(hasNodeSqlite ? [{ name: 'node:sqlite', env: { AIP_EMULATOR_SQLITE: 'node' }, aips: true }] : []),
    { name: 'node-sqlite3-wasm', env: { AIP_EMULATOR_SQLITE: 'wasm' }, aips: true },
  ];
  const notes = [];
  if (withBetterSqlite3) {
    const better = betterSqlite3Binding(node);
    if (better.binding)
      list.push({ name: BETTER_SQLITE3, env: { AIP_EMULATOR_SQLITE: better.binding }, aips: false });
    else notes.push(better.note);
  }
  return { list, notes };
}

/**
 * Per binding: start-up with an empty directory and with `jobs` finished jobs (medians of `runs`), and
 * creates per second of models and of jobs (medians of `createRuns`, each binding and --ephemeral
 * taking turns, so that a slow moment of the machine falls on all of them alike).
 */
export async function measureEmulator(
  options,
  { jobs = 10_000, runs = 5, createRuns = 3, createsPerRun = 2_000, withBetterSqlite3 = true } = {},
) {
  const { list, notes } = bindings(options.node, { withBetterSqlite3 });
  const dir = mkdtempSync(join(options.dir, 'bench-emulator-'));
  try {
    // One directory of `jobs` finished jobs, made by aip's default binding and opened by each: they
    // all read the same file format.
    const full = join(dir, 'full');
    const filling = await startForeground(options, ['--state-dir', full], list[0].env);
    const { id: modelId } = await newModel(filling.origin, 'bench');
    await creates(jobs, 16, () => newJob(filling.origin, modelId));
    // One more request brings every job to its end (events and checkpoints written).
    await new Promise((resolve) => setTimeout(resolve, 50));
    await fetch(`${filling.origin}/training/v1/health`);
    await filling.stop();

    const results = list.map((binding, index) => ({
      ...binding,
      index,
      empty: [],
      full: [],
      models: [],
      jobs: [],
    }));
    for (let i = 0; i < runs; i++) {
      for (const result of results) {
        const empty = await startForeground(
          options,
          ['--state-dir', join(dir, `empty-${result.index}-${i}`)],
          result.env,
        );
        result.empty.push(empty.ms);
        await empty.stop();
        const loaded = await startForeground(options, ['--state-dir', full], result.env);
        result.full.push(loaded.ms);
        await loaded.stop();
      }
    }

    const ephemeral = { models: [], jobs: [] };
    for (let i = 0; i < createRuns; i++) {
      for (const kind of [ephemeral, ...results]) {
        // Jobs that stay queued: what is measured is the create, not the events of the jobs before it.
        const args = [
          ...(kind === ephemeral ? ['--ephemeral'] : ['--state-dir', join(dir, `rate-${kind.index}-${i}`)]),
          ...['--step-ms', '3600000'],
        ];
        const emu = await startForeground(options, args, kind.env);
        kind.models.push(await creates(createsPerRun, 8, (n) => newModel(emu.origin, `m${n}`)));
        const { id } = await newModel(emu.origin, 'jobs');
        kind.jobs.push(await creates(createsPerRun, 8, () => newJob(emu.origin, id)));
        await emu.stop();
      }
    }
    return {
      jobs,
      notes,
      ephemeral: {
        modelCreatesPerSecond: median(ephemeral.models),
        jobCreatesPerSecond: median(ephemeral.jobs),
      },
      bindings: results.map((r) => ({
        name: r.name,
        /** One aip keeps its state with (else measured for comparison only). */
        aips: r.aips,
        startEmptyMs: median(r.empty),
        startFullMs: median(r.full),
        modelCreatesPerSecond: median(r.models),
        jobCreatesPerSecond: median(r.jobs),
      })),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Paging at depth: the median time of a page of 100 checkpoints after the 45,000th of `checkpoints`,
 * against the first page, of an --ephemeral emulator (the cursor found by index: any page as fast as
 * the first), and the same of events is not measured (a job has at most 10,002: the same code).
 */
export async function measurePaging(options, { checkpoints = 100_000, depth = 45_000, samples = 41 } = {}) {
  const emu = await startForeground(options, ['--ephemeral']);
  try {
    const { id } = await newModel(emu.origin, 'paging');
    await post(emu.origin, `/_emulator/models/${id}/checkpoints`, { count: checkpoints });
    const base = `${emu.origin}/training/v1/preview/models/${id}/checkpoints?limit=100`;
    const get = async (after) => {
      const res = await fetch(after ? `${base}&after=${after}` : base, {
        headers: { authorization: `Bearer ${KEY}` },
      });
      if (res.status !== 200) throw new Error(`GET checkpoints: HTTP ${res.status}`);
      return res.json();
    };
    // The cursor at depth: paged to, as a client gets there.
    let cursor = '';
    for (let seen = 0; seen < depth; seen += 100) cursor = (await get(cursor)).last_id;
    const first = [];
    const deep = [];
    for (let i = 0; i < samples; i++) {
      for (const [list, after] of [
        [first, undefined],
        [deep, cursor],
      ]) {
        const started = performance.now();
        await get(after);
        list.push(performance.now() - started);
      }
    }
    return { checkpoints, depth, firstMs: median(first), deepMs: median(deep) };
  } finally {
    await emu.stop();
  }
}

/**
 * The issue's targets as rows for bench/run.mjs ({case, env, ms, baseline, baselineMs, target, maxMs?}):
 * from measureEmulator's result (durable creates ≥ 0.67× --ephemeral's rate: time a create ≤ 1.5×;
 * start-up with its jobs against an empty start, and ≤ 2 s once they are 100,000), and from
 * measurePaging's (a page at depth as fast as the first: ≤ 1.2×).
 */
export function emulatorRows(result, paging) {
  const rows = [];
  const n = (value) => value.toLocaleString('en-US');
  for (const binding of result?.bindings.filter((b) => b.aips) ?? []) {
    rows.push({
      case: 'aip emulator start-up',
      env: `${n(result.jobs)} jobs in its state, ${binding.name}`,
      ms: binding.startFullMs,
      baseline: 'an empty state directory',
      baselineMs: binding.startEmptyMs,
      target: 5.0,
      ...(result.jobs >= 100_000 ? { maxMs: 2000 } : {}),
    });
    for (const [what, rate, ephemeralRate] of [
      ['model', binding.modelCreatesPerSecond, result.ephemeral.modelCreatesPerSecond],
      ['job', binding.jobCreatesPerSecond, result.ephemeral.jobCreatesPerSecond],
    ])
      rows.push({
        case: `emulator: 1,000 ${what} creates`,
        env: `durable, ${binding.name}`,
        ms: 1_000_000 / rate,
        baseline: '--ephemeral',
        baselineMs: 1_000_000 / ephemeralRate,
        target: 1.5,
      });
  }
  if (paging)
    rows.push({
      case: `emulator: a page of checkpoints at depth ${n(paging.depth)}`,
      env: `${n(paging.checkpoints)} checkpoints, limit 100, --ephemeral`,
      ms: paging.deepMs,
      baseline: 'the first page',
      baselineMs: paging.firstMs,
      target: 1.2,
    });
  return rows;
}

/** The results as lines of text, one per binding, then --ephemeral's and the notes. */
export function describeEmulator(result) {
  const n = (value) => Math.round(value).toLocaleString('en-US');
  return [
    ...result.bindings.map(
      (b) =>
        `${b.name}: listening in ${n(b.startEmptyMs)} ms (empty state), ${n(b.startFullMs)} ms with ${n(result.jobs)} jobs; creates ${n(b.modelCreatesPerSecond)} models/s, ${n(b.jobCreatesPerSecond)} jobs/s`,
    ),
    `--ephemeral: creates ${n(result.ephemeral.modelCreatesPerSecond)} models/s, ${n(result.ephemeral.jobCreatesPerSecond)} jobs/s`,
    ...result.notes,
  ];
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const option = (name, fallback) => (args.includes(name) ? Number(args[args.indexOf(name) + 1]) : fallback);
  const bin = args.includes('--bin') ? args[args.indexOf('--bin') + 1] : join(ROOT, 'bin', 'aip.js');
  if (!existsSync(join(dirname(bin), '..', 'dist', 'main.js')))
    throw new Error('no dist/: run npm run build first');
  const scratch = mkdtempSync(join(tmpdir(), 'aip-bench-emulator-'));
  const env = { ...process.env, AIP_CONFIG_DIR: scratch, NO_COLOR: '1' };
  delete env.NODE_EXTRA_CA_CERTS;
  try {
    const started = performance.now();
    const options = { node: process.execPath, bin, env, dir: scratch };
    const result = await measureEmulator(options, {
      jobs: option('--jobs', 10_000),
      runs: option('--runs', 5),
      withBetterSqlite3: !args.includes('--no-better-sqlite3'),
    });
    for (const line of describeEmulator(result)) console.log(line);
    const paging = await measurePaging(options);
    for (const row of emulatorRows(result, paging)) {
      const ratio = row.baselineMs ? row.ms / row.baselineMs : undefined;
      const met =
        (ratio === undefined || ratio <= row.target) && (row.maxMs === undefined || row.ms <= row.maxMs);
      console.log(
        `${row.case} (${row.env}): ${row.ms.toFixed(1)} ms against ${row.baseline} ${row.baselineMs.toFixed(1)} ms = ${ratio?.toFixed(2)}x (target ≤ ${row.target}x${row.maxMs ? `, ≤ ${row.maxMs} ms` : ''}): ${met ? 'met' : 'missed'}`,
      );
    }
    console.log(`node ${process.version}; ${((performance.now() - started) / 1000).toFixed(0)} s`);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}
