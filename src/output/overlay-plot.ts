// A terminal line chart of several series on shared axes (aip compare): each series drawn as plot.ts
// draws one (braille lines, 2×4 dots a character), its points marked with a glyph of its own and a
// legend below. The glyphs tell the series apart without colour (piped, NO_COLOR); with colour on, each
// series has a colour too. A character where two series' lines cross takes the colour of the later
// series; a point's glyph is drawn over any line. The glyphs are ASCII: one column wide in every
// terminal, whatever its idea of ambiguous-width symbols.

import type { ChalkInstance } from 'chalk';
import { formatNumber } from './numbers.js';

const BRAILLE_BASE = 0x2800;
const DOT = [
  [0x01, 0x08],
  [0x02, 0x10],
  [0x04, 0x20],
  [0x40, 0x80],
];

export const SERIES_GLYPHS = ['*', '+', 'o', 'x', '#', '@', '%', '&'] as const;
const COLOURS = ['cyan', 'magenta', 'yellow', 'green', 'blue', 'red', 'white', 'gray'] as const;

export interface OverlaySeries {
  label: string;
  points: ReadonlyArray<readonly [number, number]>;
}

export interface OverlayOptions {
  width: number;
  height: number;
  /** io.style: a no-op when colour is off. */
  style?: ChalkInstance;
}

interface Frame {
  minX: number;
  maxX: number;
  minY: number;
  maxY: number;
  cols: number;
  rows: number;
  labels: [string, string, string];
  labelWidth: number;
}

function frame(all: ReadonlyArray<readonly [number, number]>, options: OverlayOptions): Frame {
  const xs = all.map((p) => p[0]);
  const ys = all.map((p) => p[1]);
  let [minY, maxY] = [Math.min(...ys), Math.max(...ys)];
  if (minY === maxY) [minY, maxY] = [minY - 1, maxY + 1];
  const labels: [string, string, string] = [
    formatNumber(maxY),
    formatNumber((minY + maxY) / 2),
    formatNumber(minY),
  ];
  const labelWidth = Math.max(...labels.map((l) => l.length));
  return {
    minX: Math.min(...xs),
    maxX: Math.max(...xs),
    minY,
    maxY,
    labels,
    labelWidth,
    cols: Math.max(8, options.width - labelWidth - 2),
    rows: Math.max(3, options.height),
  };
}

/** One series' braille dots (a bit mask per character) and the characters its points fall in. */
function draw(points: ReadonlyArray<readonly [number, number]>, f: Frame) {
  const dotsX = f.cols * 2;
  const dotsY = f.rows * 4;
  const bits = Array.from({ length: f.rows }, () => new Array<number>(f.cols).fill(0));
  const marks: Array<[row: number, col: number]> = [];
  const toDot = ([x, y]: readonly [number, number]): [number, number] => [
    f.maxX === f.minX ? 0 : Math.round(((x - f.minX) / (f.maxX - f.minX)) * (dotsX - 1)),
    Math.round(((f.maxY - y) / (f.maxY - f.minY)) * (dotsY - 1)),
  ];
  const set = (dx: number, dy: number) => {
    bits[Math.floor(dy / 4)]![Math.floor(dx / 2)]! |= DOT[dy % 4]![dx % 2]!;
  };
  const sorted = [...points].sort((a, b) => a[0] - b[0]).map(toDot);
  sorted.forEach(([x1, y1], i) => {
    const [x0, y0] = i === 0 ? [x1, y1] : sorted[i - 1]!;
    const steps = Math.max(Math.abs(x1 - x0), Math.abs(y1 - y0), 1);
    for (let s = 0; s <= steps; s++)
      set(Math.round(x0 + ((x1 - x0) * s) / steps), Math.round(y0 + ((y1 - y0) * s) / steps));
    marks.push([Math.floor(y1 / 4), Math.floor(x1 / 2)]);
  });
  return { bits, marks };
}

/** The chart as lines of text: y labels left, x labels (first and last x) below, then the legend. */
export function overlayChart(series: readonly OverlaySeries[], options: OverlayOptions): string[] {
  const drawn = series.filter((s) => s.points.length > 0);
  if (drawn.length === 0) return [];
  const f = frame(
    drawn.flatMap((s) => s.points),
    options,
  );
  const paint = (i: number, text: string) =>
    options.style ? options.style[COLOURS[i % COLOURS.length]!](text) : text;
  const glyph = (i: number) => SERIES_GLYPHS[i % SERIES_GLYPHS.length]!;
  // Per character: the dots of every series, the last series to draw there, and a point's glyph.
  const dots = Array.from({ length: f.rows }, () => new Array<number>(f.cols).fill(0));
  const owner = Array.from({ length: f.rows }, () => new Array<number>(f.cols).fill(-1));
  const marker = Array.from({ length: f.rows }, () => new Array<number>(f.cols).fill(-1));
  series.forEach((s, i) => {
    if (s.points.length === 0) return;
    const { bits, marks } = draw(s.points, f);
    bits.forEach((row, r) => {
      row.forEach((b, c) => {
        if (b === 0) return;
        dots[r]![c]! |= b;
        owner[r]![c] = i;
      });
    });
    for (const [r, c] of marks) marker[r]![c] = i;
  });
  const lines = dots.map((row, r) => {
    const label =
      r === 0
        ? f.labels[0]
        : r === f.rows - 1
          ? f.labels[2]
          : r === Math.floor((f.rows - 1) / 2)
            ? f.labels[1]
            : '';
    const cells = row.map((b, c) => {
      const m = marker[r]![c]!;
      if (m >= 0) return paint(m, glyph(m));
      if (b === 0) return String.fromCharCode(BRAILLE_BASE);
      return paint(owner[r]![c]!, String.fromCharCode(BRAILLE_BASE + b));
    });
    return `${label.padStart(f.labelWidth)} ┤${cells.join('')}`;
  });
  const first = formatNumber(f.minX);
  const last = formatNumber(f.maxX);
  lines.push(`${' '.repeat(f.labelWidth)} └${'─'.repeat(f.cols)}`);
  lines.push(`${' '.repeat(f.labelWidth + 2)}${first}${last.padStart(Math.max(1, f.cols - first.length))}`);
  lines.push(
    ...series.map(
      (s, i) =>
        `${' '.repeat(f.labelWidth + 2)}${paint(i, glyph(i))} ${s.label}${s.points.length === 0 ? ' (no points)' : ''}`,
    ),
  );
  return lines;
}
