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
  // A command that talks to the platform begins its history (src/history/recorder.ts) at its first
  // request: here one refused at once (port 9, no retry), so that the recorder's and the journal's
  // code, which every such command runs, is in the start-up chunk's cache. Exit 1, as refused.
  [
    ['--max-retries', '0', 'health', '--json'],
    {
      AIP_BASE_URL: 'http://127.0.0.1:9/v1',
      AIP_INFERENCE_URL: 'http://127.0.0.1:9/v1',
      AIP_TRACE_URL: 'http://127.0.0.1:9',
      AIP_API_KEY: 'code-cache-training-key',
      AIP_DATA_DIR: join(configDir, 'data'),
    },
    1,
  ],
];

/**
 * Run after the caches of the chunks above are taken, for the chunks they load first: a start-up
 * chunk's cache holds what the commands above call, not every verb's definition a TAB walks (a larger
 * cache is more to read and deserialize on every run).
 */
const LATER_RUNS = [
  // A TAB, over the local records (written below): the completion's chunks, and the tree it walks.
  [['__complete', '--', 'checkpoints', 'list', ''], {}],
  [['__complete', '--', 'jobs', 'get', ''], {}],
  // The chunk `models list` runs (the Inference API's list, over aip's own client), read from the
  // local record here: the training sends nothing.
  [['models', 'list', '--remembered', '--json'], {}],
];

/** A model and a job remembered against the default base URL, for the TAB above to offer. */
function writeRecords() {
  const base_url = 'https://api.training.wandb.ai/v1';
  const id = '00000000-0000-4000-8000-000000000000';
  const created_at = '2025-01-01T00:00:00.000Z';
  const model = { id, entity: 'team', project: 'proj', name: 'agent', base_model: 'm', base_url, created_at };
  const job = { id, kind: 'rl', model_id: id, model: 'team/proj/agent', base_url, created_at };
  writeFileSync(join(configDir, 'models.json'), JSON.stringify({ models: [model] }));
  writeFileSync(join(configDir, 'jobs.json'), JSON.stringify({ jobs: [job] }));
}

async function train() {
  const scripts = new Map();
  useCodeCache(dist, (filename, length, script) => scripts.set(filename, { length, script }));
  writeRecords();
  const { main } = require(join(dist, 'main.js'));
  const caches = new Map();
  const take = () => {
    for (const [filename, { length, script }] of scripts)
      if (!caches.has(filename)) caches.set(filename, { length, data: script.createCachedData() });
  };
  for (const runs of [RUNS, LATER_RUNS]) {
    for (const [args, env, expected = 0] of runs) {
      const code = await main(args, { env: { PATH: process.env.PATH, AIP_CONFIG_DIR: configDir, ...env } });
      if (code !== expected) throw new Error(`aip ${args.join(' ')} exited ${code}`);
    }
    take();
  }
  for (const [filename, { length, data }] of caches) {
    const header = Buffer.alloc(4);
    header.writeUInt32LE(length);
    const path = cachePath(dist, filename);
    mkdirSync(dirname(path), { recursive: true });
    // Written whole or not at all: a cache cut short is one V8 would reject, but never half-read.
    writeFileSync(`${path}.tmp`, Buffer.concat([header, data]));
    renameSync(`${path}.tmp`, path);
  }
}

train().catch((error) => {
  process.stderr.write(`${error.stack ?? error}\n`);
  process.exitCode = 1;
});
