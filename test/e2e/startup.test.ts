// What start-up loads (the cost of every command is Node's start plus this): a timing would be noise
// here, so the test checks the files instead. `--help` loads the entry and the one chunk of the
// command tree (build.mjs keeps those modules together), and none of the heavy dependencies, which
// belong to the commands that use them. dist/ is CommonJS (scripts/commonjs.mjs): a file's static
// imports are its require() calls outside a promise; an import() became `.then(() => require(…))`.

import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import Module from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { tempConfigDir } from '../helpers/cli.js';
import { aipEnv, BIN, BUILD_ROOT } from '../helpers/spawn.js';

const LOADER = fileURLToPath(new URL('../helpers/log-loads.cjs', import.meta.url));
const CODE_CACHE_LOGGER = fileURLToPath(new URL('../helpers/log-code-cache.cjs', import.meta.url));
const BUILTINS_LOGGER = fileURLToPath(new URL('../helpers/log-builtins.cjs', import.meta.url));

/** The dist/ files `aip <args>` loads, relative to dist/. */
function loads(args: string[]): string[] {
  const r = spawnSync(process.execPath, ['--require', LOADER, BIN, ...args], {
    env: aipEnv({ AIP_CONFIG_DIR: tempConfigDir() }),
    encoding: 'utf8',
  });
  expect(r.status, r.stderr).toBe(0);
  return [...r.stderr.matchAll(/^aip-test-load (\S+)$/gm)]
    .map((m) => m[1]!)
    .filter((path) => path.includes('/dist/'))
    .map((path) => path.slice(path.lastIndexOf('/dist/') + 6));
}

/** The source files bundled into the dist/ files given, from their source maps. */
function sources(files: string[]): string[] {
  return files.flatMap(
    (file) =>
      (JSON.parse(readFileSync(join(BUILD_ROOT, 'dist', `${file}.map`), 'utf8')) as { sources: string[] })
        .sources,
  );
}

const HEAVY =
  /node_modules\/(conf|ora|openai|protobufjs|@opentelemetry|jq-wasm|@modelcontextprotocol|zod)\/|src\/output\/jq\.ts$|src\/ci\/(?!detect\.ts)|src\/emulator\/(?!defaults\.ts)|src\/traces\/|src\/mcp\//;

/** A dist/ file and the files it imports statically, relative to dist/. */
function staticClosure(file: string, seen = new Set<string>()): string[] {
  if (seen.has(file)) return [...seen];
  seen.add(file);
  const code = readFileSync(join(BUILD_ROOT, 'dist', file), 'utf8');
  for (const m of code.matchAll(/(?<!=>(?:__toESM\()?)\brequire\("(\.[^"]+)"\)/g)) {
    staticClosure(join(dirname(file), m[1]!), seen);
  }
  return [...seen];
}

/** Node 22.1+ compiles through its own compile cache; Node 20 through the build's (bin/aip.js). */
const NODE_COMPILE_CACHE =
  typeof (Module as { enableCompileCache?: unknown }).enableCompileCache === 'function';

/** Node's own modules that a bare `node -e 0` of this Node loads. */
const BARE_NODE_BUILTINS = new Set(
  [
    ...spawnSync(process.execPath, ['--require', BUILTINS_LOGGER, '-e', '0'], {
      encoding: 'utf8',
    }).stderr.matchAll(/^aip-test-builtin (\S+)$/gm),
  ].map((m) => m[1]!),
);

describe('start-up', () => {
  it('--version loads nothing from dist/ (the entry answers it)', () => {
    expect(loads(['--version'])).toEqual([]);
  });

  it('--help loads the entry and one chunk, with commander and the tree but nothing heavy', () => {
    // One chunk: the start-up modules are kept together (build.mjs), and the traces worker, built on
    // its own, no longer shares the error classes with start-up through a chunk of their own.
    const files = loads(['--help']);
    expect(files).toEqual(['main.js', expect.stringMatching(/^chunks\/chunk-[^/]+\.js$/)]);
    const bundled = sources(files);
    expect(bundled.some((s) => s.includes('node_modules/commander/'))).toBe(true);
    expect(bundled.some((s) => s.endsWith('src/program.ts'))).toBe(true);
    expect(bundled.filter((s) => HEAVY.test(s))).toEqual([]);
  });

  it("a noun's and a verb's --help load no more than --help", () => {
    expect(loads(['jobs', '--help'])).toEqual(loads(['--help']));
    expect(loads(['jobs', 'create', 'rl', '--help'])).toEqual(loads(['--help']));
  });

  it('the traces worker starts without the command tree (the build ties only commands to main)', () => {
    const bundled = sources(staticClosure('traces-worker.js'));
    expect(bundled.some((s) => s.endsWith('src/traces/read/worker.ts'))).toBe(true);
    expect(bundled.filter((s) => /node_modules\/commander\/|src\/(main|program)\.ts$/.test(s))).toEqual([]);
  });

  it.runIf(NODE_COMPILE_CACHE)(
    "on Node 22+, --help compiles through Node's compile cache, taken on the next run",
    () => {
      const run = () =>
        spawnSync(process.execPath, [BIN, '--help'], {
          env: aipEnv({ AIP_CONFIG_DIR: tempConfigDir(), NODE_DEBUG_NATIVE: 'COMPILE_CACHE' }),
          encoding: 'utf8',
        });
      const first = run();
      expect(first.status, first.stderr).toBe(0);
      const second = run();
      expect(second.stdout).toBe(first.stdout);
      expect(second.stderr).toMatch(
        /V8 code cache for CommonJS \S+\/dist\/chunks\/chunk-\S+\.js was accepted/,
      );
      expect(second.stderr).not.toMatch(/aip-test-code-cache/);
    },
  );

  it.runIf(!NODE_COMPILE_CACHE)(
    '--help compiles its chunks from the code cache the build made, and V8 takes it',
    () => {
      const r = spawnSync(process.execPath, ['--require', CODE_CACHE_LOGGER, BIN, '--help'], {
        env: aipEnv({ AIP_CONFIG_DIR: tempConfigDir() }),
        encoding: 'utf8',
      });
      expect(r.status, r.stderr).toBe(0);
      const cached = [...r.stderr.matchAll(/^aip-test-code-cache \S+\/dist\/(\S+) (\S+)$/gm)];
      const chunks = loads(['--help']).filter((file) => file.startsWith('chunks/'));
      expect(chunks.length).toBeGreaterThan(0);
      expect(cached.map((m) => [m[1], m[2]])).toEqual(chunks.map((file) => [file, 'used']));
    },
  );

  it.runIf(!NODE_COMPILE_CACHE)(
    'under other V8 flags, V8 rejects the cache and the chunks are compiled anew: same help',
    () => {
      const run = (flags: string[]) =>
        spawnSync(process.execPath, [...flags, '--require', CODE_CACHE_LOGGER, BIN, '--help'], {
          env: aipEnv({ AIP_CONFIG_DIR: tempConfigDir() }),
          encoding: 'utf8',
        });
      const usual = run([]);
      const other = run(['--no-opt']);
      expect(other.status, other.stderr).toBe(0);
      expect(other.stderr).toMatch(/^aip-test-code-cache \S+ rejected$/m);
      expect(other.stdout).toBe(usual.stdout);
    },
  );

  it('with --enable-source-maps, Node compiles the chunks itself (its stack traces then name the sources)', () => {
    const r = spawnSync(
      process.execPath,
      ['--enable-source-maps', '--require', CODE_CACHE_LOGGER, BIN, '--debug', 'jobs', 'get', 'x'],
      { env: aipEnv({ AIP_CONFIG_DIR: tempConfigDir() }), encoding: 'utf8' },
    );
    expect(r.stderr).not.toMatch(/aip-test-code-cache/);
    expect(r.stderr).toMatch(/at async Object\.main \(\S+\/src\/main\.ts:\d+:\d+\)/);
  });

  it("--help and config list load neither Node's ES-module loader nor child_process", () => {
    // dist/ is CommonJS: loading node:module (createRequire, say) would bring the ES-module loader
    // back (~1.5 ms); commander's child_process is loaded on first use (scripts/lazy-*.mjs).
    for (const args of [['--help'], ['config', 'list']]) {
      const r = spawnSync(process.execPath, ['--require', BUILTINS_LOGGER, BIN, ...args], {
        env: aipEnv({ AIP_CONFIG_DIR: tempConfigDir() }),
        encoding: 'utf8',
      });
      expect(r.status, r.stderr).toBe(0);
      const builtins = [...r.stderr.matchAll(/^aip-test-builtin (\S+)$/gm)].map((m) => m[1]!);
      expect(builtins).toContain('tty');
      // Newer Nodes load the ES-module loader for every program: only what aip adds counts.
      expect(
        builtins.filter(
          (name) =>
            /^(module|internal\/modules\/esm\/loader|child_process)$/.test(name) &&
            !BARE_NODE_BUILTINS.has(name),
        ),
      ).toEqual([]);
    }
  });

  it('a TAB (aip __complete) adds its own code and the local records: no conf, nothing heavy', () => {
    const files = loads(['__complete', '--', 'jobs', 'get', '']);
    const bundled = sources(files);
    expect(bundled.some((s) => s.endsWith('src/commands/completion/complete.run.ts'))).toBe(true);
    expect(bundled.filter((s) => HEAVY.test(s))).toEqual([]);
  });

  it('config list adds only its own code: no conf (loaded for writes) and nothing heavy', () => {
    const files = loads(['config', 'list']);
    // Start-up's two, the verb's code, and the table it prints with.
    expect(files.length).toBeLessThanOrEqual(4);
    expect(sources(files).filter((s) => HEAVY.test(s))).toEqual([]);
  });
});
