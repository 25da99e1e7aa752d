#!/usr/bin/env node
// Entry point, kept tiny: `--version` is answered before anything else loads, so scripts that probe
// for aip pay no more than Node's own start-up. Everything else is in dist/, CommonJS files compiled
// with the code cache the build made for them (code-cache.js).
'use strict';

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
    require('./code-cache.js').useCodeCache(dist);
    require(entry)
      .main(args)
      .then((code) => {
        process.exitCode = code;
      });
  }
}
