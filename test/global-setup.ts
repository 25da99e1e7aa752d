// Once per run, in vitest's own process: builds aip into a directory of the run's own (for the tests
// that spawn bin/aip.js; the rest run main() in-process), never the checkout's dist/, which an aip
// started from the same checkout may be running from (AIP_TEST_BUILD names it; test/helpers/spawn.ts);
// fixes the seed of the generated cases, and gives the run a temporary
// directory of its own. After the run it checks that the run left nothing behind, and fails it if it
// did:
//   - no process the run started is still running (see test/helpers/leaks.ts for how they are known);
//     those found are named, then killed;
//   - the run's temporary directory is empty: every directory a test made (test/helpers/temp.ts) and
//     everything aip made in it (traces spools, aip-traces-*) is gone. Whatever is left is named; the
//     directory is removed all the same.
// TMPDIR points at that directory for the whole run (the workers and what they start inherit it), so
// what a run leaves is told apart from what other runs, at the same time, leave in the OS temporary
// directory. New aip-* entries there are reported too, as a warning only: they cannot be told apart.

import { chmodSync, mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildAip } from '../scripts/build.mjs';
import { describeProcess, killAll, waitForProcesses } from './helpers/leaks.js';
import { resolveSeed } from './helpers/seed.js';
import { removeTree } from './helpers/temp.js';

const AIP_PREFIX = /^aip-/;

export default async function setup(): Promise<() => Promise<void>> {
  const seed = resolveSeed(process.env.AIP_TEST_SEED);
  if (seed.random) {
    console.log(
      `AIP_TEST_SEED=random: the generated cases of this run use seed ${seed.seed}; ` +
        `replay them with AIP_TEST_SEED=${seed.seed}`,
    );
  }
  // The workers read the seed from here: one seed for the whole run, the one printed.
  process.env.AIP_TEST_SEED = String(seed.seed);

  const systemTmp = tmpdir();
  const before = new Set(readdirSync(systemTmp).filter((name) => AIP_PREFIX.test(name)));
  const runDir = mkdtempSync(join(systemTmp, 'aip-run-'));
  // As the OS's own: tests run some processes as another user (nobody), who must write there too.
  chmodSync(runDir, 0o1777);
  // Beside the run's temporary directory, not in it: what is left in that directory is checked.
  const buildDir = `${runDir}-build`;
  const saved = {
    TMPDIR: process.env.TMPDIR,
    AIP_TEST_RUN: process.env.AIP_TEST_RUN,
    AIP_TEST_BUILD: process.env.AIP_TEST_BUILD,
    AIP_DATA_DIR: process.env.AIP_DATA_DIR,
  };
  process.env.TMPDIR = runDir;
  process.env.AIP_TEST_RUN = runDir;
  process.env.AIP_TEST_BUILD = buildDir;
  // What the tests start with an inherited environment keeps its history (aip's data directory) here,
  // not in the home directory of the machine.
  process.env.AIP_DATA_DIR = `${runDir}-data`;

  try {
    await buildAip({ quiet: true, outRoot: buildDir });
  } catch (error) {
    removeTree(runDir);
    removeTree(buildDir);
    throw error;
  }

  return async function teardown(): Promise<void> {
    const problems: string[] = [];
    const left = await waitForProcesses({
      marker: runDir,
      // The pool's workers (there until vitest closes the pool) and esbuild's service: vitest's own.
      ignore: (p) => p.ppid === process.pid && /\/(vitest|esbuild|@esbuild)\//.test(p.command),
    });
    if (left.length > 0) {
      problems.push(
        `${left.length} process(es) started by the run still running (now killed):\n${left.map((p) => `  ${describeProcess(p)}`).join('\n')}`,
      );
      killAll(left);
    }
    let files: string[] = [];
    try {
      // Node 22+'s compile cache, which aip enables (bin/aip.js), is made under the temporary directory.
      files = readdirSync(runDir).filter((name) => name !== 'node-compile-cache');
    } catch (error) {
      problems.push(`the run's temporary directory ${runDir} could not be read: ${(error as Error).message}`);
    }
    if (files.length > 0) {
      problems.push(
        `left in the run's temporary directory ${runDir} (now removed):\n${files
          .sort()
          .map((f) => `  ${f}`)
          .join('\n')}`,
      );
    }
    for (const dir of [runDir, buildDir, `${runDir}-data`]) {
      try {
        removeTree(dir);
      } catch (error) {
        problems.push(`${dir} could not be removed: ${(error as Error).message}`);
      }
    }
    for (const [key, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
    const elsewhere = readdirSync(systemTmp).filter((name) => AIP_PREFIX.test(name) && !before.has(name));
    if (elsewhere.length > 0) {
      console.warn(
        `warning: ${elsewhere.length} new aip-* entries in ${systemTmp} since the run began (from this run, ` +
          `or from another one at the same time): ${elsewhere.slice(0, 10).join(', ')}${elsewhere.length > 10 ? ', …' : ''}`,
      );
    }
    if (seed.random) console.log(`AIP_TEST_SEED=random: this run used seed ${seed.seed}`);
    if (problems.length > 0) {
      // vitest prints what teardown throws ("error during close") but does not fail the run for it.
      process.exitCode = 1;
      throw new Error(`the test run left things behind:\n${problems.join('\n')}`);
    }
  };
}
