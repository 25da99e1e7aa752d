// An esbuild plugin: src/'s `import { createRequire } from 'node:module'` gets a createRequire that
// loads node:module only when the function it returns is first asked for something not built in.
// dist/ is CommonJS, where loading the public node:module brings Node's ES-module loader with it
// (internal/modules/esm/*, source maps: ~1.5 ms), which a CommonJS run otherwise never loads; a
// module that makes its require() when it loads, or requires a built-in with it as it loads, would put
// that on every start-up. A built-in ("node:…") is the same module whoever requires it, so the
// CommonJS file's own require() gives it; anything else is resolved from the same URL by Node's
// createRequire, so what it finds is what Node's would.

const SOURCE = /[\\/]src[\\/].*\.ts$/;

export function lazyCreateRequire() {
  return {
    name: 'lazy-create-require',
    setup(build) {
      build.onResolve({ filter: /^(node:)?module$/ }, (args) =>
        SOURCE.test(args.importer) ? { path: 'module', namespace: 'aip-lazy-create-require' } : undefined,
      );
      build.onLoad({ filter: /.*/, namespace: 'aip-lazy-create-require' }, () => ({
        // Only createRequire: a source importing anything else from node:module fails the build.
        contents: `export function createRequire(url) {
  let real;
  const load = () => (real ??= require('node:module').createRequire(url));
  const lazyRequire = (id) => (id.startsWith('node:') ? require(id) : load()(id));
  lazyRequire.resolve = (request, options) => load().resolve(request, options);
  return lazyRequire;
}
`,
        loader: 'js',
      }));
    },
  };
}
