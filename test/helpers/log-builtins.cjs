// Preloaded (node --require) by the start-up test: names on stderr, as the process exits, every one of
// Node's own modules it loaded (process.moduleLoadList), for what a run should never load.
'use strict';

process.on('exit', () => {
  const names = process.moduleLoadList.filter((m) => m.startsWith('NativeModule ')).map((m) => m.slice(13));
  process.stderr.write(names.map((name) => `aip-test-builtin ${name}\n`).join(''));
});
