// Turns esbuild's ES-module output (entries and split chunks) into CommonJS files, one for one. Node
// starts a CommonJS program several milliseconds sooner: an ES module makes Node load and compile
// its ES-module loader first (~4 ms of a ~50 ms `aip --help`), and each ES file costs more to load than
// a CommonJS one. esbuild splits code only for ES modules, so the build splits first and converts
// after: every chunk stays one file, shared by the files that import it, so a module that start-up
// loaded (the error classes, the remembered secrets) is the same module for every command's chunk
// (`instanceof` holds, and module state is one). An import() becomes a require() in a promise, so a
// command's chunk loads through the CommonJS loader too.
//
// ES-module semantics kept by the conversion: strict mode (the banner), live bindings (esbuild's
// CommonJS exports are getters), import.meta.url (from __filename). A top-level await, which
// CommonJS cannot express, fails the build.

import { transform } from 'esbuild';

const SOURCE_MAP_COMMENT = /\n?\/\/# sourceMappingURL=\S+\s*$/;
const IMPORT_META_URL = '__aipImportMetaUrl';

/**
 * The CommonJS version of one output file: its code and its source map, which maps to the original
 * sources (the ES file's own map is given to esbuild inline, so it chains the two).
 */
export async function toCommonJS(file, code, map) {
  const name = file.slice(file.lastIndexOf('/') + 1);
  const input = map
    ? `${code.replace(SOURCE_MAP_COMMENT, '')}\n//# sourceMappingURL=data:application/json;base64,${Buffer.from(map).toString('base64')}\n`
    : code;
  const usesImportMeta = code.includes('import.meta');
  const result = await transform(input, {
    sourcefile: file,
    format: 'cjs',
    platform: 'node',
    target: 'node20',
    supported: { 'dynamic-import': false },
    define: usesImportMeta ? { 'import.meta.url': IMPORT_META_URL } : {},
    banner: `"use strict";${usesImportMeta ? `var ${IMPORT_META_URL}=require("node:url").pathToFileURL(__filename).href;` : ''}`,
    minifySyntax: true,
    minifyWhitespace: true,
    sourcemap: map ? 'external' : false,
    legalComments: 'none',
    logLevel: 'error',
  });
  // import.meta other than .url would be empty in CommonJS: esbuild warns, and the build stops.
  const empty = result.warnings.find((w) => w.text.includes('import.meta'));
  if (empty) throw new Error(`${file}: ${empty.text}`);
  if (!map) return { code: result.code };
  return { code: `${result.code}//# sourceMappingURL=${name}.map\n`, map: result.map };
}
