// Preloaded (node --require) by the start-up test: names on stderr each script compiled with a V8
// code cache (bin/code-cache.js), and whether V8 took the cache or compiled the file anew.
'use strict';

const vm = require('node:vm');

const { Script } = vm;
vm.Script = class extends Script {
  constructor(code, options) {
    super(code, options);
    if (options?.cachedData) {
      process.stderr.write(
        `aip-test-code-cache ${options.filename} ${this.cachedDataRejected ? 'rejected' : 'used'}\n`,
      );
    }
  }
};
