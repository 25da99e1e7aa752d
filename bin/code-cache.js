// Compiles dist/'s files with the V8 code cache the build made for them (scripts/code-cache.mjs), as
// v8-compile-cache does: Node 20 has no compile cache of its own (module.enableCompileCache is 22.1+),
// and compiling the start-up chunk is a good part of what start-up costs. The cache holds the bytecode
// of every function a few typical runs called, so V8 neither parses nor compiles them again.
//
// The cache is never needed for correctness: a file without one, a cache V8 rejects (another Node or
// V8 version, other V8 flags) or one that cannot be read is compiled as Node would. A cache is only
// used for the chunk it was made from: its name is the chunk's, and a chunk's name has a hash of its
// content (esbuild's [hash]), so a rebuilt chunk never meets an old cache. The length is checked too,
// as V8 itself checks only that.
'use strict';

// The Module class without loading the public node:module (not otherwise loaded by a CommonJS run).
const Module = module.constructor;
const { readFileSync } = require('node:fs');
const { dirname, join, sep } = require('node:path');
const vm = require('node:vm');

/** Where the cache of a dist/ file is: dist/code-cache/<path with / as +>.v8 */
function cachePath(dist, filename) {
  return join(
    dist,
    'code-cache',
    `${filename
      .slice(dist.length + 1)
      .split(sep)
      .join('+')}.v8`,
  );
}

/** A cache file: the source's length in characters (4 bytes, little-endian), then V8's data. */
function readCache(dist, filename, length) {
  let data;
  try {
    data = readFileSync(cachePath(dist, filename));
  } catch {
    return undefined;
  }
  return data.length > 4 && data.readUInt32LE(0) === length ? data.subarray(4) : undefined;
}

/**
 * --enable-source-maps, given on the command line or in NODE_OPTIONS (process.sourceMapsEnabled says
 * so only from Node 20.7; engines allows 20.0).
 */
function sourceMapsEnabled() {
  if (process.sourceMapsEnabled !== undefined) return process.sourceMapsEnabled;
  const flag = '--enable-source-maps';
  return process.execArgv.includes(flag) || (process.env.NODE_OPTIONS ?? '').split(/\s+/).includes(flag);
}

/** The require function Node gives a module (its makeRequireFunction, minus what bundles never use). */
function requireFor(module) {
  const moduleRequire = (id) => module.require(id);
  moduleRequire.resolve = (request, options) => Module._resolveFilename(request, module, false, options);
  moduleRequire.resolve.paths = (request) => Module._resolveLookupPaths(request, module);
  moduleRequire.main = require.main;
  moduleRequire.extensions = Module._extensions;
  moduleRequire.cache = Module._cache;
  return moduleRequire;
}

/**
 * From now on, the files under `dist` (hashed chunks only: see above) are compiled with their cache.
 * With `record`, each compiled script is handed to it, for the build to make the cache from.
 */
function useCodeCache(dist, record) {
  const compile = Module.prototype._compile;
  // Only chunks: their names carry a content hash, which entries' (main.js) do not.
  const chunks = join(dist, 'chunks') + sep;
  Module.prototype._compile = function (content, filename) {
    // With --enable-source-maps, Node's own compile: it maps stack traces to the sources, and on
    // Node 20 a vm.Script's frames are not mapped.
    if (!filename.startsWith(chunks) || sourceMapsEnabled()) return compile.call(this, content, filename);
    const cachedData = readCache(dist, filename, content.length);
    if (!cachedData && !record) return compile.call(this, content, filename);
    const script = new vm.Script(Module.wrap(content), {
      filename,
      cachedData,
      // Bundles never import() (the build turns it into require), but should one, it would work.
      importModuleDynamically: vm.constants?.USE_MAIN_CONTEXT_DEFAULT_LOADER,
    });
    record?.(filename, content.length, script);
    const wrapper = script.runInThisContext({ displayErrors: true });
    return wrapper.call(this.exports, this.exports, requireFor(this), this, filename, dirname(filename));
  };
}

module.exports = { useCodeCache, cachePath };
