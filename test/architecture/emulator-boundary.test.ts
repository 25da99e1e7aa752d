// The emulator is a part of aip with one way in: src/emulator/index.ts. Nothing outside src/emulator/
// imports any other file in it, type-only imports included (the entry exports the types too), so that
// its insides can be reshaped without touching the rest; what it shares with the rest without owning it
// lives outside (src/settings/local-platform.ts, src/lib/seeded-random.ts). Checked over src/, bench/, scripts/ and
// test/, except test/emulator/: the emulator's own unit tests, which test its parts (the stores, the
// request record) directly.
//
// The scanner is a few regular expressions over the sources, as in imports.test.ts: every module
// specifier of a static import or export (`import type` too, over several lines), a dynamic or type
// `import('…')`, and a `require('…')`.

import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const EMULATOR = join(ROOT, 'src', 'emulator');
const ENTRY = join(EMULATOR, 'index.ts');
/** Where files may reach past the entry: the emulator itself, and its own unit tests. */
const INSIDE = [EMULATOR, join(ROOT, 'test', 'emulator')];
const SCANNED = ['src', 'test', 'bench', 'scripts'];

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : sources(path);
    return /\.(ts|mts|cts|js|mjs|cjs)$/.test(entry.name) ? [path] : [];
  });
}

/** Every relative module specifier in a file's text, resolved against the file, .js read as .ts. */
function specifiers(file: string, text: string): string[] {
  const patterns = [
    // import x from '…', import type { A } from '…', export * from '…', import '…' (over lines too)
    /(?:^|[;\s])(?:import|export)\s+(?:type\s+)?(?:[^'";]*?\sfrom\s*)?['"]([^'"]+)['"]/g,
    // await import('…'), typeof import('…')
    /\bimport\(\s*['"]([^'"]+)['"]\s*\)/g,
    /\brequire\(\s*['"]([^'"]+)['"]\s*\)/g,
  ];
  const found = new Set<string>();
  for (const pattern of patterns) for (const m of text.matchAll(pattern)) found.add(m[1]!);
  return [...found]
    .filter((spec) => spec.startsWith('.'))
    .map((spec) => resolve(dirname(file), spec.replace(/\.js$/, '.ts')));
}

/** The imports of one file that reach into the emulator past its entry, as "file → target". */
function reachesIn(file: string, text: string): string[] {
  if (INSIDE.some((dir) => file.startsWith(dir + sep))) return [];
  return specifiers(file, text)
    .filter((target) => target.startsWith(EMULATOR + sep) && target !== ENTRY)
    .map((target) => `${relative(ROOT, file)} → ${relative(ROOT, target)}`);
}

describe('the emulator boundary', () => {
  it('is crossed only through src/emulator/index.ts', () => {
    // Not this file: its samples below are text, not imports.
    const self = fileURLToPath(import.meta.url);
    const files = SCANNED.flatMap((dir) => sources(join(ROOT, dir))).filter((file) => file !== self);
    expect(files.length).toBeGreaterThan(100);
    const crossings = files.flatMap((file) => reachesIn(file, readFileSync(file, 'utf8')));
    expect(crossings).toEqual([]);
  });

  it('the check can fail: each kind of import past the entry is seen, the entry and the inside are not', () => {
    const outside = join(ROOT, 'src', 'commands', 'emulator', 'start.ts');
    const text = [
      "import { startEmulator } from '../../emulator/server.js';",
      "import type { RequestRecord } from '../../emulator/recorder.js';",
      'import {',
      '  type Fault,',
      '  FaultStore,',
      "} from '../../emulator/faults.js';",
      "export { seedDemo } from '../../emulator/demo.js';",
      "const { EmulatorState } = await import('../../emulator/state.js');",
      "let s: typeof import('../../emulator/durable/sqlite.js');",
      "import { EMULATOR_HOST } from '../../settings/local-platform.js';",
      "import { seedDemo as entry } from '../../emulator/index.js';",
    ].join('\n');
    expect(reachesIn(outside, text).map((crossing) => crossing.split(' → ')[1])).toEqual([
      'src/emulator/server.ts',
      'src/emulator/recorder.ts',
      'src/emulator/faults.ts',
      'src/emulator/demo.ts',
      'src/emulator/state.ts',
      'src/emulator/durable/sqlite.ts',
    ]);
    const inside = join(EMULATOR, 'server.ts');
    expect(reachesIn(inside, "import { FaultStore } from './faults.js';")).toEqual([]);
    const ownTest = join(ROOT, 'test', 'emulator', 'jobs.test.ts');
    expect(reachesIn(ownTest, "import { JobStore } from '../../src/emulator/store/jobs.js';")).toEqual([]);
    const otherTest = join(ROOT, 'test', 'helpers', 'emulator.ts');
    expect(reachesIn(otherTest, "import { startEmulator } from '../../src/emulator/server.js';")).toEqual([
      'test/helpers/emulator.ts → src/emulator/server.ts',
    ]);
  });
});
