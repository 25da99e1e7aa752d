// Makes dist/code-cache/ (see bin/code-cache.js): runs the commands whose start-up matters most, in
// this process, with dist/'s chunks compiled through the same hook aip uses, then saves each chunk's
// code cache. A cache made after the runs holds every function they called, not only the top level.
// Run by the build (scripts/code-cache.mjs) in a fresh Node with no flags, as aip runs: V8 accepts a
// cache only under the flags it was made with.
//
//   node scripts/code-cache-train.cjs <dist> <config dir>
'use strict';

const { mkdirSync, renameSync, writeFileSync } = require('node:fs');
const { dirname, join } = require('node:path');
const { cachePath, useCodeCache } = require('../bin/code-cache.js');

const [dist, configDir] = process.argv.slice(2);
const RUNS = [
  // --help twice: with colour (a terminal) and without (a pipe), as each calls other functions.
  [['--help'], { FORCE_COLOR: '1' }],
  [['--help'], { NO_COLOR: '1' }],
  [['jobs', '--help'], {}],
  [['jobs', 'create', 'rl', '--help'], {}],
  [['config', 'list'], {}],
];

async function train() {
  const scripts = new Map();
  useCodeCache(dist, (filename, length, script) => scripts.set(filename, { length, script }));
  const { main } = require(join(dist, 'main.js'));
  for (const [args, env] of RUNS) {
    const code = await main(args, { env: { PATH: process.env.PATH, AIP_CONFIG_DIR: configDir, ...env } });
    if (code !== 0) throw new Error(`aip ${args.join(' ')} exited ${code}`);
  }
  for (const [filename, { length, script }] of scripts) {
    const header = Buffer.alloc(4);
    header.writeUInt32LE(length);
    const path = cachePath(dist, filename);
    mkdirSync(dirname(path), { recursive: true });
    // Written whole or not at all: a cache cut short is one V8 would reject, but never half-read.
    writeFileSync(`${path}.tmp`, Buffer.concat([header, script.createCachedData()]));
    renameSync(`${path}.tmp`, path);
  }
}

train().catch((error) => {
  process.stderr.write(`${error.stack ?? error}\n`);
  process.exitCode = 1;
});
