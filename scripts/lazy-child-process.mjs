// An esbuild plugin: commander's `require('node:child_process')` gets the module on first use, not when
// commander loads. Commander needs it only to run a subcommand that is a separate executable, which aip
// has none of; loading it at start-up costs ~1 ms (child_process brings dgram, net's handles, …) on
// every run. Any other importer gets Node's module as it is.

const COMMANDER = /[\\/]commander[\\/]lib[\\/]command\.js$/;

export function lazyChildProcessForCommander() {
  return {
    name: 'lazy-child-process-for-commander',
    setup(build) {
      build.onResolve({ filter: /^(node:)?child_process$/ }, (args) =>
        COMMANDER.test(args.importer) ? { path: 'child_process', namespace: 'aip-lazy' } : undefined,
      );
      build.onLoad({ filter: /.*/, namespace: 'aip-lazy' }, () => ({
        contents:
          "let loaded;\nmodule.exports = new Proxy({}, { get: (_, key) => (loaded ??= require('node:child_process'))[key] });\n",
        loader: 'js',
      }));
    },
  };
}
