// Bundles src/ into dist/ with esbuild. One bundle with code splitting keeps start-up close to bare
// `node`: the entry holds only what every run needs (commander, the command tree), and each command's
// code and heavy dependencies (conf, ora, openai, the emulator) land in chunks loaded on first use.
import { readFileSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));

export async function buildAip({ quiet = false } = {}) {
  rmSync(join(root, 'dist'), { recursive: true, force: true });
  const result = await build({
    absWorkingDir: root,
    // The traces worker is an entry of its own: worker threads start from a file.
    entryPoints: { main: 'src/main.ts', 'traces-worker': 'src/traces/worker.ts' },
    outdir: 'dist',
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    chunkNames: 'chunks/[name]-[hash]',
    minifySyntax: true,
    minifyWhitespace: true,
    sourcemap: 'linked',
    legalComments: 'none',
    metafile: true,
    define: { AIP_VERSION: JSON.stringify(pkg.version) },
    // Bundled CommonJS dependencies call require() for Node built-ins; give them a real one.
    banner: {
      js: "import { createRequire as __aipCreateRequire } from 'node:module'; const require = __aipCreateRequire(import.meta.url);",
    },
    logLevel: quiet ? 'error' : 'warning',
  });
  return result;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const result = await buildAip();
  const outputs = Object.entries(result.metafile.outputs).filter(([f]) => f.endsWith('.js'));
  const total = outputs.reduce((n, [, o]) => n + o.bytes, 0);
  const entry = outputs.find(([f]) => f === 'dist/main.js');
  console.error(
    `built dist/: ${outputs.length} files, ${(total / 1024).toFixed(0)} KiB (entry ${((entry?.[1].bytes ?? 0) / 1024).toFixed(0)} KiB)`,
  );
}
