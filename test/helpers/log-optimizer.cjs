// Preloaded (node --allow-natives-syntax --require) by the exit-deadlock test: says on stderr, as the
// process exits, whether V8 may still optimize (src/lib/sqlite/exit-deadlock.ts turns that off in
// the commands that end after using the WebAssembly SQLite). V8's own status of a function says so:
// kNeverOptimize (2) is set while the optimizing compilers are off.
'use strict';

// V8's natives syntax, which no JavaScript parser but V8's (with --allow-natives-syntax) takes: compiled
// at run time, so that the file itself stays plain JavaScript.
const optimizationStatus = new Function('f', 'return %GetOptimizationStatus(f)');

process.on('exit', () => {
  function probe() {}
  probe();
  const status = optimizationStatus(probe);
  process.stderr.write(`aip-test-optimizer ${status & 2 ? 'off' : 'on'}\n`);
});
