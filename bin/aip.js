#!/usr/bin/env node
// Entry point, kept tiny: `--version` is answered before anything else loads, so scripts that probe
// for aip pay no more than Node's own start-up. Everything else is in dist/, CommonJS files compiled
// with the code cache the build made for them (code-cache.js).
'use strict';

/**
 * Compiled code kept between runs. Node 22.1+ has its own compile cache (made by the first runs,
 * under the OS temporary directory, per Node version and file): it works whichever Node built dist/,
 * and measured on Node 24 it does as well as the build's own cache made by that same Node (--help
 * 1.40x and 1.41x `node -e 0`, against 1.44x with neither). Node 20 has none, and there the build's
 * cache pays (bin/code-cache.js: 1.90x to 1.66x); a cache the build made with another Node is
 * rejected by V8 anyway. NODE_DISABLE_COMPILE_CACHE=1 turns Node's off.
 */
function startupCache(dist) {
  // Not node:module on Node 20: loading it there brings the ES-module loader (~1.5 ms).
  const Module = Number(process.versions.node.split('.')[0]) >= 22 ? require('node:module') : undefined;
  if (typeof Module?.enableCompileCache === 'function') Module.enableCompileCache();
  else require('./code-cache.js').useCodeCache(dist);
}

const args = process.argv.slice(2);
if (args.length === 1 && (args[0] === '--version' || args[0] === '-V')) {
  const { readFileSync } = require('node:fs');
  const { join } = require('node:path');
  process.stdout.write(
    `${JSON.parse(readFileSync(join(__dirname, '..', 'package.json'), 'utf8')).version}\n`,
  );
} else {
  const { join } = require('node:path');
  const dist = join(__dirname, '..', 'dist');
  let entry;
  try {
    entry = require.resolve(join(dist, 'main.js'));
  } catch {
    process.stderr.write('error: aip is not built yet: run `npm run build` in its directory\n');
    process.exitCode = 1;
  }
  if (entry) {
    startupCache(dist);
    require(entry)
      .main(args)
      .then((code) => {
        process.exitCode = code;
      });
  }
}
