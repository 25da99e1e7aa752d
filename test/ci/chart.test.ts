// The summary's chart is Mermaid's xychart-beta: each block checked against the grammar it must
// follow to render (a recogniser for the subset lineChart emits), whatever the data and the labels.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { lineChart, mermaidNumber } from '../../src/ci/chart.js';

/** A number as xychart-beta's lexer reads one: optional sign, digits, optional fraction; no exponent. */
const NUMBER = String.raw`-?\d+(?:\.\d+)?`;
/** A quoted string: anything but a quote or a line break, and nothing a fence or markup could use. */
const LABEL = String.raw`"[^"\n\r\x60<>{}\[\];#%]*"`;

interface ParsedChart {
  title: string;
  xLabel: string;
  categories: string[];
  yLabel: string;
  yMin: number;
  yMax: number;
  values: number[];
}

/** Recognises a block lineChart may emit, or throws saying which line breaks the grammar. */
function parseChart(block: string): ParsedChart {
  const lines = block.split('\n');
  const expectLine = (i: number, pattern: string): RegExpMatchArray => {
    const m = new RegExp(`^${pattern}$`).exec(lines[i] ?? '');
    if (!m) throw new Error(`line ${i + 1} does not match ${pattern}: ${JSON.stringify(lines[i])}`);
    return m;
  };
  expect(lines).toHaveLength(8);
  expectLine(0, '```mermaid');
  expectLine(1, 'xychart-beta');
  const title = expectLine(2, `  title (${LABEL})`)[1]!;
  const x = expectLine(3, `  x-axis (${LABEL}) \\[(${LABEL}(?:, ${LABEL})*)\\]`);
  const y = expectLine(4, `  y-axis (${LABEL}) (${NUMBER}) --> (${NUMBER})`);
  const line = expectLine(5, `  line \\[(${NUMBER}(?:, ${NUMBER})*)\\]`);
  expectLine(6, '```');
  expect(lines[7]).toBe('');
  const unquote = (s: string) => s.slice(1, -1);
  return {
    title: unquote(title),
    xLabel: unquote(x[1]!),
    categories: x[2]!.split(', ').map(unquote),
    yLabel: unquote(y[1]!),
    yMin: Number(y[2]),
    yMax: Number(y[3]),
    values: line[1]!.split(', ').map(Number),
  };
}

describe('lineChart (Mermaid xychart-beta)', () => {
  it('draws reward per step: a title, the steps on x, a y range around the values, one line', () => {
    const block = lineChart({
      title: 'reward',
      xLabel: 'step',
      yLabel: 'mean reward',
      points: [
        { x: 1, y: 0.1 },
        { x: 2, y: 0.25 },
        { x: 3, y: 0.5 },
      ],
    })!;
    const chart = parseChart(block);
    expect(chart).toMatchObject({ title: 'reward', xLabel: 'step', yLabel: 'mean reward' });
    expect(chart.categories).toEqual(['1', '2', '3']);
    expect(chart.values).toEqual([0.1, 0.25, 0.5]);
    expect(chart.yMin).toBeLessThan(0.1);
    expect(chart.yMax).toBeGreaterThan(0.5);
  });

  it('keeps hostile labels inside their quotes, on their line', () => {
    const hostile =
      'loss"\n```\n%%{init: {"theme": "dark"}}%%\n<img src=x onerror=alert(1)> [link](x) #quot;';
    const chart = parseChart(
      lineChart({
        title: hostile,
        xLabel: hostile,
        yLabel: hostile,
        points: [
          { x: 0, y: 1 },
          { x: 1, y: 2 },
        ],
      })!,
    );
    for (const label of [chart.title, chart.xLabel, chart.yLabel]) {
      expect(label).not.toMatch(/["\n`<>{}[\]#%]/);
      expect(label.length).toBeLessThanOrEqual(80);
    }
  });

  it('drops points that are not finite, and draws nothing with fewer than two', () => {
    const chart = parseChart(
      lineChart({
        title: 't',
        xLabel: 'x',
        yLabel: 'y',
        points: [
          { x: 1, y: Number.NaN },
          { x: 2, y: 3 },
          { x: 3, y: Number.POSITIVE_INFINITY },
          { x: 4, y: 5 },
          { x: Number.NaN, y: 1 },
        ],
      })!,
    );
    expect(chart.categories).toEqual(['2', '4']);
    expect(chart.values).toEqual([3, 5]);
    expect(lineChart({ title: 't', xLabel: 'x', yLabel: 'y', points: [{ x: 1, y: 1 }] })).toBeUndefined();
    expect(lineChart({ title: 't', xLabel: 'x', yLabel: 'y', points: [] })).toBeUndefined();
  });

  it('thins many steps to maxPoints, the first and the last kept', () => {
    const points = Array.from({ length: 1000 }, (_, i) => ({ x: i + 1, y: Math.sin(i / 50) }));
    const chart = parseChart(lineChart({ title: 't', xLabel: 'x', yLabel: 'y', points, maxPoints: 40 })!);
    expect(chart.categories).toHaveLength(40);
    expect(chart.values).toHaveLength(40);
    expect(chart.categories[0]).toBe('1');
    expect(chart.categories.at(-1)).toBe('1000');
  });

  it('gives equal values a range of their own (the axis needs min < max)', () => {
    const chart = parseChart(
      lineChart({
        title: 't',
        xLabel: 'x',
        yLabel: 'y',
        points: [
          { x: 1, y: 0 },
          { x: 2, y: 0 },
        ],
      })!,
    );
    expect(chart.yMin).toBeLessThan(0);
    expect(chart.yMax).toBeGreaterThan(0);
  });

  it('stays within the grammar for any data (random points, labels and sizes)', () => {
    const point = fc.record({ x: fc.double(), y: fc.double() });
    fc.assert(
      fc.property(
        fc.array(point, { maxLength: 120 }),
        fc.string(),
        fc.integer({ min: 2, max: 60 }),
        (points, text, max) => {
          const block = lineChart({ title: text, xLabel: text, yLabel: text, points, maxPoints: max });
          const drawable = points.filter(
            (p) =>
              Number.isFinite(p.x) && Number.isFinite(p.y) && Math.abs(p.x) < 1e15 && Math.abs(p.y) < 1e15,
          );
          if (drawable.length < 2) {
            expect(block).toBeUndefined();
            return;
          }
          const chart = parseChart(block!);
          expect(chart.values.length).toBe(Math.min(drawable.length, max));
          expect(chart.categories.length).toBe(chart.values.length);
          expect(chart.values.every(Number.isFinite)).toBe(true);
          expect(chart.yMin).toBeLessThan(chart.yMax);
        },
      ),
    );
  });

  it('writes numbers in plain decimal notation, six significant digits at most', () => {
    expect(mermaidNumber(0.000001234567)).toBe('0.00000123457');
    expect(mermaidNumber(1e-30)).toBe('0');
    expect(mermaidNumber(-2.5)).toBe('-2.5');
    expect(mermaidNumber(123456789)).toBe('123456789');
    expect(mermaidNumber(1e20)).toBe('100000000000000000000');
    expect(mermaidNumber(-1e-25)).toBe('0');
  });
});
