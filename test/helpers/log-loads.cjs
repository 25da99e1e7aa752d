// Preloaded (node --require) by the start-up test: names every file module Node loads on stderr, as
// what a command loads is what it costs to start. dist/ is CommonJS, so each of its files passes here.
'use strict';

const Module = require('node:module');

const load = Module.prototype.load;
Module.prototype.load = function (filename) {
  process.stderr.write(`aip-test-load ${filename}\n`);
  return load.call(this, filename);
};
