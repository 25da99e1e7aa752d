#!/usr/bin/env node
// Start-up of the built CLI against `node -e 0` of the same Node (issue 32), for the Node running this
// and for Node 24 (scripts/node-line.sh; skipped, with a note, where it cannot be had): `--help`,
// `jobs --help`, `config list`, and the TAB that completes a model name or a job id over 1,000 and
// 10,000 remembered ones (bench/completion.mjs). Every case of one Node is interleaved run by run with
// its yardstick, NODE_EXTRA_CA_CERTS unset, so that machine noise falls on both alike.
//
//   node bench/startup.mjs [--runs N] [--no-node24] [--bin path/to/bin/aip.js]

import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BIN, benchEnv, completionCases, printRows, row, timeInterleaved } from './completion.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/** The Node of MAJOR from scripts/node-line.sh, or why there is none. */
export function nodeLine(major) {
  const r = spawnSync('bash', [join(root, 'scripts', 'node-line.sh'), String(major)], { encoding: 'utf8' });
  const node = join(r.stdout.trim(), 'node');
  if (r.status !== 0 || !existsSync(node))
    return {
      note: `Node ${major} unavailable (scripts/node-line.sh: ${r.stderr.trim().split('\n').at(-1)})`,
    };
  return { node };
}

/** The start-up cases, each { name, args, target }; `major` is the Node's (Node 20 has its own target). */
export function startupCases(major) {
  const target = major >= 22 ? 1.3 : 1.5;
  return [
    { name: 'aip --help', args: ['--help'], target },
    { name: 'aip jobs --help', args: ['jobs', '--help'], target },
    { name: 'aip config list', args: ['config', 'list'], target },
  ];
}

/**
 * Rows `{ case, env, ms, baseline, baselineMs, target }` for each Node: process.execPath, and Node 24
 * unless `node24: false` (or this is Node 24). `notes` gets a line for a Node skipped. `bin`: the
 * aip to run (default this checkout's bin/aip.js; a build of its own, buildAip({ outRoot }), is not
 * replaced under the bench by someone else's build).
 */
export function measureStartup({ runs = 21, node24 = true, notes = [], completion = true, bin = BIN } = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'aip-bench-startup-'));
  try {
    const env = benchEnv(join(dir, 'config'));
    const nodes = [process.execPath];
    if (node24 && !process.version.startsWith('v24.')) {
      const line = nodeLine(24);
      if (line.node) nodes.push(line.node);
      else notes.push(line.note);
    }
    const extra = completion ? completionCases(dir) : [];
    const rows = [];
    for (const node of nodes) {
      const version = spawnSync(node, ['-p', 'process.version'], { encoding: 'utf8' }).stdout.trim();
      const major = Number(version.slice(1).split('.')[0]);
      const label = `node ${version}`;
      const cases = [...startupCases(major), ...extra];
      // A first run of each, unmeasured: Node 22+'s compile cache is made by the first run.
      timeInterleaved(
        cases.map((c) => ({ argv: [node, bin, ...c.args], env: c.env })),
        { runs: 1, warmup: 0, env },
      );
      const [bare, ...times] = timeInterleaved(
        [{ argv: [node, '-e', '0'] }, ...cases.map((c) => ({ argv: [node, bin, ...c.args], env: c.env }))],
        { runs, env },
      );
      cases.forEach((c, i) => {
        rows.push(row(c.name, label, times[i], 'node -e 0', bare, c.target));
      });
    }
    return rows;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const runs = Number(args[args.indexOf('--runs') + 1]) || 21;
  const notes = [];
  const bin = args.includes('--bin') ? args[args.indexOf('--bin') + 1] : undefined;
  const rows = measureStartup({ runs, node24: !args.includes('--no-node24'), notes, bin });
  printRows(rows);
  for (const note of notes) console.log(`note: ${note}`);
}
