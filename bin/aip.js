#!/usr/bin/env node
// Entry point, kept tiny and CommonJS (bin/package.json): Node starts a CommonJS file ~5 ms faster
// than an ES module, and `--version` is answered before anything else loads, so scripts that probe
// for aip pay no more than Node's own start-up. Everything else is in dist/ (ES modules).
'use strict';

const args = process.argv.slice(2);
if (args.length === 1 && (args[0] === '--version' || args[0] === '-V')) {
  const { readFileSync } = require('node:fs');
  const { join } = require('node:path');
  process.stdout.write(
    `${JSON.parse(readFileSync(join(__dirname, '..', 'package.json'), 'utf8')).version}\n`,
  );
} else {
  // Node 22.1+ caches compiled code between runs; Node 20 has no such cache.
  require('node:module').enableCompileCache?.();
  import('../dist/main.js').then(
    async (entry) => {
      process.exitCode = await entry.main(args);
    },
    (error) => {
      if (error?.code === 'ERR_MODULE_NOT_FOUND' && String(error.message).includes('dist/main.js')) {
        process.stderr.write('error: aip is not built yet: run `npm run build` in its directory\n');
        process.exitCode = 1;
      } else throw error;
    },
  );
}
