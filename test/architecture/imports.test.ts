// The shape of src/, checked rather than hoped for: no import cycles (at run time: `import type` is
// gone by then); no command folder importing from another noun's command folder (what two nouns
// share has a home of its own: src/<noun>/, or src/commands/ itself for what verbs of every noun use);
// the commands on top: nothing but program.ts, which builds the tree, imports from src/commands/; and
// the foundation (api, ci, errors, fs, lib, output, settings, validate) under the nouns. The scanner is a few regular expressions over the sources: the project
// writes its imports one way (ES module syntax, relative paths with .js).

import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SRC = resolve(dirname(fileURLToPath(import.meta.url)), '../../src');

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** Runtime imports of a file (static and dynamic), as absolute .ts paths under src/. */
function runtimeImports(file: string, text = readFileSync(file, 'utf8')): string[] {
  const found = new Set<string>();
  const statics = /^\s*(import|export)\s+(?!type\s)(?:[^'";]*?\sfrom\s+)?['"](\.[^'"]+)['"]/gm;
  const dynamics = /\bimport\(\s*['"](\.[^'"]+)['"]\s*\)/g;
  for (const m of text.matchAll(statics)) {
    // `import { type A, type B } from` is type-only too.
    const clause = m[0];
    if (/^\s*(import|export)\s*\{\s*(type\s+\w+\s*(as\s+\w+\s*)?,?\s*)+\}\s*from/.test(clause)) continue;
    found.add(m[2]!);
  }
  for (const m of text.matchAll(dynamics)) found.add(m[1]!);
  return [...found].map((spec) => resolve(dirname(file), spec.replace(/\.js$/, '.ts')));
}

/** Type-only imports of a file (`import type`), which the layering rule counts too. */
function typeImports(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(/^\s*(?:import|export)\s+type\s[^'";]*?\sfrom\s+['"](\.[^'"]+)['"]/gm)].map((m) =>
    resolve(dirname(file), m[1]!.replace(/\.js$/, '.ts')),
  );
}

/** The strongly connected components of more than one file, or of one that imports itself. */
function cycles(graph: Map<string, string[]>): string[][] {
  let index = 0;
  const order = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (node: string) => {
    order.set(node, index);
    low.set(node, index++);
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!graph.has(next)) continue;
      if (!order.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (onStack.has(next)) low.set(node, Math.min(low.get(node)!, order.get(next)!));
    }
    if (low.get(node) === order.get(node)) {
      const component: string[] = [];
      for (let member = stack.pop()!; ; member = stack.pop()!) {
        onStack.delete(member);
        component.push(member);
        if (member === node) break;
      }
      if (component.length > 1 || graph.get(node)?.includes(node)) found.push(component.sort());
    }
  };
  for (const node of graph.keys()) if (!order.has(node)) visit(node);
  return found;
}

const files = sources(SRC);
const graph = new Map(files.map((file) => [file, runtimeImports(file)]));
const rel = (file: string) => relative(SRC, file);

describe('the shape of src/', () => {
  it('has no import cycles at run time', () => {
    expect(cycles(graph).map((cycle) => cycle.map(rel))).toEqual([]);
  });

  it("has no command folder importing from another noun's command folder", () => {
    const nounOf = (file: string) => /^commands\/([^/]+)\//.exec(rel(file))?.[1];
    const crossings = files.flatMap((file) => {
      const noun = nounOf(file);
      if (!noun) return [];
      return (graph.get(file) ?? [])
        .filter((target) => nounOf(target) !== undefined && nounOf(target) !== noun)
        .map((target) => `${rel(file)} → ${rel(target)}`);
    });
    expect(crossings).toEqual([]);
  });

  it('has the commands on top: below them, nothing imports from src/commands/', () => {
    const isCommand = (file: string) => rel(file).startsWith('commands/');
    const upward = files
      .filter((file) => !isCommand(file) && rel(file) !== 'program.ts')
      .flatMap((file) =>
        [...new Set([...(graph.get(file) ?? []), ...typeImports(file)])]
          .filter(isCommand)
          .map((target) => `${rel(file)} → ${rel(target)}`),
      );
    expect(upward).toEqual([]);
  });

  it('has the foundation below the nouns: api, ci, errors, fs, lib, output, settings and validate import none of them', () => {
    const foundation = /^(api|ci|errors|fs|lib|output|settings|validate)\//;
    const above = /^(auth|chat|health|jobs|local-record|models|traces|commands|emulator)\//;
    const upward = files
      .filter((file) => foundation.test(rel(file)))
      .flatMap((file) =>
        [...new Set([...(graph.get(file) ?? []), ...typeImports(file)])]
          .filter((target) => above.test(rel(target)))
          .map((target) => `${rel(file)} → ${rel(target)}`),
      );
    expect(upward).toEqual([]);
  });

  it('has ci/ on the foundation it needs only: api, errors, fs, lib, output and settings (validate calls it)', () => {
    const allowed = /^(api|ci|errors|fs|lib|output|settings)\//;
    const outside = files
      .filter((file) => rel(file).startsWith('ci/'))
      .flatMap((file) =>
        [...new Set([...(graph.get(file) ?? []), ...typeImports(file)])]
          .filter((target) => !allowed.test(rel(target)))
          .map((target) => `${rel(file)} → ${rel(target)}`),
      );
    expect(outside).toEqual([]);
  });

  it('the checks can fail: a cycle and a type-only import told apart', () => {
    const a = join(SRC, 'a.ts');
    const b = join(SRC, 'b.ts');
    expect(
      runtimeImports(
        a,
        "import { x } from './b.js';\nimport type { Y } from './c.js';\nimport { type Z } from './d.js';",
      ),
    ).toEqual([b]);
    expect(runtimeImports(a, "const m = await import('./b.js');")).toEqual([b]);
    expect(
      cycles(
        new Map([
          [a, [b]],
          [b, [a]],
        ]),
      ),
    ).toEqual([[a, b].sort()]);
    expect(
      cycles(
        new Map([
          [a, [b]],
          [b, []],
        ]),
      ),
    ).toEqual([]);
  });
});
