// No function in src/ is longer than 120 lines, from the line it starts on to the line it ends on
// (blank lines, comments and braces included): logic denser than that is split into named pieces.
// Measured with the TypeScript compiler's own parse rather than Biome's noExcessiveLinesPerFunction,
// which skips brace lines and the first line and so lets a 134-line function pass at 120.

import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const SRC = resolve(dirname(fileURLToPath(import.meta.url)), '../../src');
const MAX_LINES = 120;

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

interface FunctionLength {
  where: string;
  name: string;
  lines: number;
}

/** Every function with a body in `text` (declarations, methods, arrows, accessors), with its length. */
function functionLengths(file: string, text: string): FunctionLength[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: FunctionLength[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body) {
      const first = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
      const last = source.getLineAndCharacterOfPosition(node.end).line;
      const named = node.name?.getText(source);
      const parent = node.parent;
      const name =
        named ??
        (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent)
          ? parent.name.getText(source)
          : '(anonymous)');
      found.push({ where: `${file}:${first + 1}`, name, lines: last - first + 1 });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe('function length', () => {
  it(`no function in src/ is longer than ${MAX_LINES} lines`, () => {
    const all = sources(SRC).flatMap((file) =>
      functionLengths(relative(join(SRC, '..'), file), readFileSync(file, 'utf8')),
    );
    const long = all.filter((f) => f.lines > MAX_LINES).map((f) => `${f.where} ${f.name}: ${f.lines} lines`);
    expect(long).toEqual([]);
    // The scan found the functions at all (a parse that found none would pass anything).
    expect(all.length).toBeGreaterThan(1000);
  });

  it('measures from the first line to the last, braces and blank lines included', () => {
    const body = Array.from({ length: 119 }, (_, i) => (i % 3 === 0 ? '' : `  call${i}();`)).join('\n');
    const [arrow] = functionLengths('x.ts', `const f = () => {\n${body}\n};\n`);
    expect(arrow).toEqual({ where: 'x.ts:1', name: 'f', lines: 121 });
    const nested = functionLengths('y.ts', 'class A {\n  m() {\n    return () => 1;\n  }\n}\n');
    expect(nested.map((f) => [f.name, f.lines])).toEqual([
      ['m', 3],
      ['(anonymous)', 1],
    ]);
  });
});
