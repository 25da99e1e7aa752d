// Bundles src/ into dist/ with esbuild. One bundle with code splitting keeps start-up close to bare
// `node`: the entry and its one chunk hold only what every run needs (commander, the command tree),
// and each command's code and heavy dependencies (conf, ora, openai, the emulator) land in chunks
// loaded on first use. The files are CommonJS (commonjs.mjs: Node starts those sooner), and the build
// ends by making V8's code cache for the start-up chunks (code-cache.mjs).
import { cpSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { makeCodeCache } from './code-cache.mjs';
import { toCommonJS } from './commonjs.mjs';
import { lazyChildProcessForCommander } from './lazy-child-process.mjs';
import { lazyCreateRequire } from './lazy-create-require.mjs';
import { plainBuiltinsForChalk } from './plain-builtins.mjs';
import { writeThirdPartyNotices } from './third-party-notices.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));

/**
 * Start-up loads one chunk, not a dozen. esbuild puts a module shared by entries into the chunk of
 * exactly the entries that reach it, and every lazily imported file is an entry of its own: so the
 * modules that start-up needs (commander, chalk, the command tree, settings, errors) were spread over
 * a dozen chunks, as different commands share different parts of them, and each file costs Node a
 * resolution, a read and a compile (~0.5–1 ms as ES modules, ~0.2 ms as CommonJS). Making every lazily imported file also import main.ts gives all of those
 * modules the same set of entries, so they land in one chunk. Nothing more is loaded at start-up (the
 * same modules, in one file), and a command's chunk finds main's modules already evaluated. Every
 * file under src/commands and src/chat gets the import, whatever order esbuild loads them in (for the
 * verbs' definitions, which start-up loads anyway, it is a harmless cycle). The traces worker is left
 * alone: it must not load the command tree.
 */
function startupInOneChunk() {
  const main = join(root, 'src', 'main.ts');
  const lazySources = [join(root, 'src', 'commands'), join(root, 'src', 'chat')];
  return {
    name: 'startup-in-one-chunk',
    setup(build) {
      // Known before the build starts: esbuild may load a file (reached by a static import) before it
      // resolves the dynamic import of the same file elsewhere, and a file loaded without the import
      // of main.ts lands in a chunk of its own. The dependencies' dynamic targets are found as
      // resolved (below); only src/ imports them, and nothing in src/ imports them statically.
      const dynamicTargets = new Set(sourceDynamicImports(join(root, 'src')));
      build.onResolve({ filter: /.*/ }, async (args) => {
        if (args.kind !== 'dynamic-import' || args.pluginData?.resolving || args.path.startsWith('node:'))
          return undefined;
        const resolved = await build.resolve(args.path, {
          kind: args.kind,
          resolveDir: args.resolveDir,
          importer: args.importer,
          pluginData: { resolving: true },
        });
        if (!resolved.errors.length && !resolved.external) dynamicTargets.add(resolved.path);
        return resolved.errors.length ? undefined : resolved;
      });
      // Not .cjs: an import statement would turn a CommonJS file into an ES module.
      build.onLoad({ filter: /\.(ts|js|mjs)$/ }, (args) => {
        const lazy =
          dynamicTargets.has(args.path) || lazySources.some((dir) => args.path.startsWith(dir + sep));
        if (!lazy || args.path === main) return undefined;
        const source = readFileSync(args.path, 'utf8');
        // A dependency's file that is CommonJS is left as it is (the start-up test would notice a chunk more).
        if (!args.path.startsWith(join(root, 'src') + sep) && !/^\s*(import|export)\s/m.test(source))
          return undefined;
        return {
          contents: `${source}\nimport ${JSON.stringify(main)};\n`,
          loader: args.path.endsWith('.ts') ? 'ts' : 'js',
          resolveDir: dirname(args.path),
        };
      });
    },
  };
}

/** The files src/ imports with import('./…'), as absolute paths of their .ts sources. */
function sourceDynamicImports(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceDynamicImports(path);
    if (!entry.name.endsWith('.ts')) return [];
    const source = readFileSync(path, 'utf8');
    return [...source.matchAll(/\bimport\(\s*['"](\.[^'"]+)\.js['"]\s*\)/g)].map((m) =>
      join(dirname(path), `${m[1]}.ts`),
    );
  });
}

/**
 * Builds dist/ under `outRoot` (default: this checkout). Another outRoot gets a runnable copy of the
 * package around it (bin/, package.json, node_modules linked), so the tests run a build of their own
 * and never replace the dist/ that an aip started from this checkout is running from. `sourcemaps`:
 * the files' maps beside them (for developers and the tests; `npm pack` builds without them).
 */
export async function buildAip({ quiet = false, outRoot = root, sourcemaps = true } = {}) {
  const dist = join(outRoot, 'dist');
  rmSync(dist, { recursive: true, force: true });
  if (outRoot !== root) copyPackageFrame(outRoot);
  const common = {
    absWorkingDir: root,
    outdir: dist,
    // Kept in memory: each file is written once converted to CommonJS (below).
    write: false,
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    minifySyntax: true,
    minifyWhitespace: true,
    sourcemap: sourcemaps ? 'linked' : false,
    legalComments: 'none',
    metafile: true,
    define: { AIP_VERSION: JSON.stringify(pkg.version) },
    logLevel: quiet ? 'error' : 'warning',
  };
  const result = await build({
    ...common,
    entryPoints: { main: 'src/main.ts' },
    splitting: true,
    chunkNames: 'chunks/[name]-[hash]',
    plugins: [
      startupInOneChunk(),
      lazyChildProcessForCommander(),
      plainBuiltinsForChalk(),
      lazyCreateRequire(),
    ],
  });
  // The traces worker is a bundle of its own (worker threads start from a file). A worker shares no
  // module with the main thread anyway, and in one build with main, what the two have in common (the
  // error classes) was a chunk of its own, one more file for every run to load.
  const worker = await build({ ...common, entryPoints: { 'traces-worker': 'src/traces/read/worker.ts' } });
  const files = new Map([...result.outputFiles, ...worker.outputFiles].map((f) => [f.path, f.text]));
  for (const [path, code] of files) {
    if (!path.endsWith('.js')) continue;
    const converted = await toCommonJS(path, code, files.get(`${path}.map`));
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, converted.code);
    if (converted.map) writeFileSync(`${path}.map`, converted.map);
  }
  // The package is "type": "module"; dist/ holds CommonJS.
  writeFileSync(join(dist, 'package.json'), '{ "type": "commonjs" }\n');
  // jq's WebAssembly, which its package finds beside its own module (src/output/jq.ts reads it here).
  cpSync(createRequire(import.meta.url).resolve('jq-wasm/jq.wasm'), join(dist, 'jq.wasm'));
  // The bundle drops the licence comments of what it contains: their notices ship beside it.
  writeThirdPartyNotices(root, [result.metafile, worker.metafile], join(dist, 'THIRD_PARTY_NOTICES.md'));
  await makeCodeCache(root, dist);
  Object.assign(result.metafile.outputs, worker.metafile.outputs);
  return result;
}

/** What bin/aip.js needs around dist/ to run from outRoot: itself, package.json, node_modules. */
function copyPackageFrame(outRoot) {
  mkdirSync(outRoot, { recursive: true });
  cpSync(join(root, 'bin'), join(outRoot, 'bin'), { recursive: true });
  cpSync(join(root, 'package.json'), join(outRoot, 'package.json'));
  rmSync(join(outRoot, 'node_modules'), { force: true });
  symlinkSync(relative(outRoot, join(root, 'node_modules')), join(outRoot, 'node_modules'), 'junction');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  // --release: as `npm pack` ships it, without source maps (AIP_SOURCEMAPS=1 keeps them).
  const release = process.argv.includes('--release');
  const result = await buildAip({ sourcemaps: !release || process.env.AIP_SOURCEMAPS === '1' });
  const { outputs } = result.metafile;
  const files = Object.keys(outputs).filter((f) => f.endsWith('.js'));
  const total = files.reduce((n, f) => n + outputs[f].bytes, 0);
  // What every run loads: the entry and the chunks it imports statically.
  const startup = new Set();
  const visit = (file) => {
    if (startup.has(file) || !outputs[file]) return;
    startup.add(file);
    for (const i of outputs[file].imports) if (i.kind === 'import-statement') visit(i.path);
  };
  visit('dist/main.js');
  const startupBytes = [...startup].reduce((n, f) => n + outputs[f].bytes, 0);
  console.error(
    `built dist/: ${files.length} files, ${(total / 1024).toFixed(0)} KiB; start-up loads ${startup.size} of them, ${(startupBytes / 1024).toFixed(0)} KiB`,
  );
}
