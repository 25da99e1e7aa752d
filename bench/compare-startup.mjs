#!/usr/bin/env node
// Start-up of this checkout's build against another's (an older commit, say), for a change that must
// not make start-up worse. The two are timed in one run, case by case in a shuffled order (seeded, so
// a run can be repeated), because on a noisy machine a difference of a few milliseconds is only seen
// side by side. Both checkouts must be built (`npm run build`; an older one can borrow this one's
// node_modules: `ln -s "$PWD/node_modules" <other>/node_modules && (cd <other> && node scripts/build.mjs)`).
//
//   node bench/compare-startup.mjs <other checkout> [runs, default 101] [--ca-unset]
//
// --ca-unset drops NODE_EXTRA_CA_CERTS, as the bench's second environment does.

import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const args = process.argv.slice(2);
const other = args[0];
if (!other) {
  console.error('usage: node bench/compare-startup.mjs <other checkout> [runs] [--ca-unset]');
  process.exit(2);
}
const runs = Number(args.find((a) => /^\d+$/.test(a)) ?? 101);
const here = join(dirname(fileURLToPath(import.meta.url)), '..');
const configDir = mkdtempSync(join(tmpdir(), 'aip-bench-compare-'));
const env = { ...process.env, AIP_CONFIG_DIR: configDir, NO_COLOR: '1' };
if (args.includes('--ca-unset')) delete env.NODE_EXTRA_CA_CERTS;

const WORDS = [['--version'], ['--help'], ['config', 'list'], ['jobs', 'create', 'rl', '--help']];
const cases = [
  ['node -e 0', ['-e', '0']],
  ...WORDS.flatMap((words) => [
    [`other ${words.join(' ')}`, [join(resolve(other), 'bin', 'aip.js'), ...words]],
    [`this  ${words.join(' ')}`, [join(here, 'bin', 'aip.js'), ...words]],
  ]),
];

/** mulberry32, seeded: the same shuffles on every run. */
let seed = 20261123;
const random = () => {
  seed = (seed + 0x6d2b79f5) >>> 0;
  let t = seed;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};

const samples = cases.map(() => []);
try {
  for (let i = 0; i < runs + 3; i++) {
    const order = cases.map((_, c) => [random(), c]).sort((a, b) => a[0] - b[0]);
    for (const [, c] of order) {
      const started = performance.now();
      const r = spawnSync(process.execPath, cases[c][1], { env, stdio: ['ignore', 'ignore', 'pipe'] });
      if (r.status !== 0) throw new Error(`${cases[c][0]} exited ${r.status}: ${r.stderr}`);
      if (i >= 3) samples[c].push(performance.now() - started);
    }
  }
} finally {
  rmSync(configDir, { recursive: true, force: true });
}

const median = (values) => [...values].sort((a, b) => a - b)[values.length >> 1];
const bare = median(samples[0]);
for (const [c, [name]] of cases.entries()) {
  const ms = median(samples[c]);
  console.log(`${name.padEnd(30)} ${ms.toFixed(1).padStart(7)} ms  ${(ms / bare).toFixed(2)}x`);
}
console.log(`\n${runs} runs per case after 3 warm-ups, shuffled; medians; node ${process.version}`);
