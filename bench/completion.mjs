#!/usr/bin/env node
// The TAB that completes a model name or a job id (issue 32): `aip __complete` over a config
// directory whose local records (models.json, jobs.json, as src/models/local-record.ts and
// src/jobs/local-record.ts write them) hold 1,000 or 10,000 entries, against `node -e 0` of the same
// Node, interleaved run by run. bench/startup.mjs measures these cases with the start-up ones; run
// alone, this prints its own rows.
//
//   node bench/completion.mjs [--runs N] [--bin path/to/bin/aip.js]

import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
export const BIN = join(root, 'bin', 'aip.js');
/** The hosted base URL: what the default profile's records are kept against. */
const HOSTED = 'https://api.training.wandb.ai/v1';

/**
 * `count` models over teams and projects such that every form of name occurs: names unique alone,
 * names shared by two projects (project/name), and project/name shared by two teams (the full name).
 */
export function modelEntries(count) {
  return Array.from({ length: count }, (_, i) => {
    const hex = i.toString(16).padStart(8, '0');
    // A third unique by name, a third by project/name, a third only by team/project/name.
    const group = i % 3;
    const n = Math.floor(i / 3);
    return {
      id: `${hex}-0000-4000-8000-000000000000`,
      entity: group === 2 ? `team-${n % 2}` : 'team',
      project: group === 0 ? 'solo' : group === 1 ? `proj-${n % 2}` : 'common',
      name: group === 0 ? `agent-${n}` : `shared-${group}-${Math.floor(n / 2)}`,
      base_model: 'OpenPipe/Qwen3-14B-Instruct',
      base_url: HOSTED,
      created_at: new Date(Date.UTC(2025, 0, 1) + i * 60_000).toISOString(),
    };
  });
}

/** `count` jobs, two thirds of them finished (their final progress kept), as completionFixture in run.mjs. */
export function jobEntries(count) {
  const final = {
    state: 'succeeded',
    step: 3,
    num_sequences: null,
    error_message: null,
    latest_metrics: { reward: 0.5 },
  };
  return Array.from({ length: count }, (_, i) => ({
    id: `${i.toString(16).padStart(8, '0')}-0000-4000-8000-000000000000`,
    kind: i % 2 ? 'rl' : 'sft',
    model_id: '11111111-0000-4000-8000-000000000000',
    model: 'bench/completion/agent-001',
    base_url: HOSTED,
    created_at: new Date(Date.UTC(2025, 0, 1) + i * 60_000).toISOString(),
    ...(i % 3 ? { final } : {}),
  }));
}

/** A config directory under `parent` remembering `count` models and `count` jobs. */
export function completionFixture(parent, count) {
  const dir = join(parent, `completion-${count}`);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'models.json'), JSON.stringify({ models: modelEntries(count) }));
  writeFileSync(join(dir, 'jobs.json'), JSON.stringify({ jobs: jobEntries(count) }));
  return dir;
}

/**
 * The completion cases, each `{ name, args, env, target }` (target: a ratio to `node -e 0`): a model
 * name (checkpoints list <model>) and a job id (jobs get <job>), over 1,000 and over 10,000 of each.
 */
export function completionCases(parent) {
  return [1000, 10_000].flatMap((count) => {
    const env = { AIP_CONFIG_DIR: completionFixture(parent, count) };
    const target = count > 1000 ? 4 : 1.5;
    const many = count.toLocaleString('en-US');
    return [
      {
        name: `aip __complete -- checkpoints list '' (TAB, ${many} models)`,
        args: ['__complete', '--', 'checkpoints', 'list', ''],
        env,
        target,
      },
      {
        name: `aip __complete -- jobs get '' (TAB, ${many} jobs)`,
        args: ['__complete', '--', 'jobs', 'get', ''],
        env,
        target,
      },
    ];
  });
}

export function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/**
 * Median wall times of `argvs` (each { argv, env }), interleaved run by run after `warmup` rounds;
 * a case that exits non-zero throws.
 */
export function timeInterleaved(cases, { runs, warmup = 3, env }) {
  const samples = cases.map(() => []);
  for (let i = 0; i < warmup + runs; i++) {
    cases.forEach((c, n) => {
      const started = performance.now();
      const r = spawnSync(c.argv[0], c.argv.slice(1), {
        env: { ...env, ...c.env },
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      const ms = performance.now() - started;
      if (r.status !== 0) throw new Error(`${c.argv.join(' ')} exited ${r.status}: ${r.stderr}`);
      if (i >= warmup) samples[n].push(ms);
    });
  }
  return samples.map(median);
}

/** The environment the bench measures in: NODE_EXTRA_CA_CERTS unset, no colour, a config dir of its own. */
export function benchEnv(configDir) {
  const env = { ...process.env, AIP_CONFIG_DIR: configDir, NO_COLOR: '1' };
  delete env.NODE_EXTRA_CA_CERTS;
  delete env.NODE_OPTIONS;
  delete env.NODE_COMPILE_CACHE;
  delete env.NODE_DISABLE_COMPILE_CACHE;
  return env;
}

/** A row as bench/run.mjs takes them. */
export function row(name, env, ms, baseline, baselineMs, target) {
  return { case: name, env, ms: +ms.toFixed(2), baseline, baselineMs: +baselineMs.toFixed(2), target };
}

/** Prints rows with their ratio and met/missed; returns whether all were met. */
export function printRows(rows) {
  let allMet = true;
  for (const r of rows) {
    const ratio = r.ms / r.baselineMs;
    const met = ratio <= r.target;
    allMet &&= met;
    console.log(
      `${r.case.padEnd(58)} ${r.env.padEnd(14)} ${r.ms.toFixed(1).padStart(8)} ms  ${ratio.toFixed(2)}x ${r.baseline} (${r.baselineMs.toFixed(1)} ms)  target <= ${r.target}x  ${met ? 'met' : 'MISSED'}`,
    );
  }
  return allMet;
}

/** The completion rows alone, for process.execPath (bench/startup.mjs has them for every Node). */
export function measureCompletion({ runs = 11, node = process.execPath, label, bin = BIN } = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'aip-bench-completion-'));
  try {
    const cases = completionCases(dir);
    const env = benchEnv(join(dir, 'config'));
    const version = spawnSync(node, ['-p', 'process.version'], { encoding: 'utf8' }).stdout.trim();
    const envLabel = label ?? `node ${version}`;
    const [bare, ...times] = timeInterleaved(
      [{ argv: [node, '-e', '0'] }, ...cases.map((c) => ({ argv: [node, bin, ...c.args], env: c.env }))],
      { runs, env },
    );
    return cases.map((c, i) => row(c.name, envLabel, times[i], 'node -e 0', bare, c.target));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const runs = Number(args[args.indexOf('--runs') + 1]) || 11;
  const bin = args.includes('--bin') ? args[args.indexOf('--bin') + 1] : undefined;
  printRows(measureCompletion({ runs, bin }));
}
