// Terminal charts: a line chart drawn with braille characters (2×4 dots each, so eight times the
// resolution of one character per point), with labelled axes.

import { formatNumber } from './numbers.js';

const BRAILLE_BASE = 0x2800;
/** Dot bit for (column 0-1, row 0-3) inside one braille cell. */
const DOT = [
  [0x01, 0x08],
  [0x02, 0x10],
  [0x04, 0x20],
  [0x40, 0x80],
];

export interface PlotOptions {
  width: number;
  height: number;
}

/** The chart as lines of text: y labels on the left, x labels (first and last x) below. */
export function lineChart(points: ReadonlyArray<readonly [number, number]>, options: PlotOptions): string[] {
  if (points.length === 0) return [];
  const xs = points.map((p) => p[0]);
  const ys = points.map((p) => p[1]);
  let [minY, maxY] = [Math.min(...ys), Math.max(...ys)];
  if (minY === maxY) [minY, maxY] = [minY - 1, maxY + 1];
  const [minX, maxX] = [Math.min(...xs), Math.max(...xs)];
  const labels = [formatNumber(maxY), formatNumber((minY + maxY) / 2), formatNumber(minY)];
  const labelWidth = Math.max(...labels.map((l) => l.length));
  const cols = Math.max(8, options.width - labelWidth - 2);
  const rows = Math.max(3, options.height);
  const dotsX = cols * 2;
  const dotsY = rows * 4;
  const cells = Array.from({ length: rows }, () => new Array<number>(cols).fill(0));

  const toDot = ([x, y]: readonly [number, number]): [number, number] => [
    maxX === minX ? 0 : Math.round(((x - minX) / (maxX - minX)) * (dotsX - 1)),
    Math.round(((maxY - y) / (maxY - minY)) * (dotsY - 1)),
  ];
  const set = (dx: number, dy: number) => {
    const row = cells[Math.floor(dy / 4)]!;
    row[Math.floor(dx / 2)]! |= DOT[dy % 4]![dx % 2]!;
  };
  // Join consecutive points with straight segments (sorted by x).
  const sorted = [...points].sort((a, b) => a[0] - b[0]).map(toDot);
  sorted.forEach(([x1, y1], i) => {
    const [x0, y0] = i === 0 ? [x1, y1] : sorted[i - 1]!;
    const steps = Math.max(Math.abs(x1 - x0), Math.abs(y1 - y0), 1);
    for (let s = 0; s <= steps; s++)
      set(Math.round(x0 + ((x1 - x0) * s) / steps), Math.round(y0 + ((y1 - y0) * s) / steps));
  });

  const lines = cells.map((row, r) => {
    const label =
      r === 0 ? labels[0]! : r === rows - 1 ? labels[2]! : r === Math.floor((rows - 1) / 2) ? labels[1]! : '';
    return `${label.padStart(labelWidth)} ┤${row.map((bits) => String.fromCharCode(BRAILLE_BASE + bits)).join('')}`;
  });
  const first = formatNumber(minX);
  const last = formatNumber(maxX);
  lines.push(`${' '.repeat(labelWidth)} └${'─'.repeat(cols)}`);
  lines.push(`${' '.repeat(labelWidth + 2)}${first}${last.padStart(Math.max(1, cols - first.length))}`);
  return lines;
}

const BARS = '▁▂▃▄▅▆▇█';

/** A one-line chart of the last `width` values. */
export function sparkline(values: readonly number[], width = 40): string {
  const shown = values.slice(-width);
  if (shown.length === 0) return '';
  const min = Math.min(...shown);
  const max = Math.max(...shown);
  return shown
    .map((v) => BARS[max === min ? 3 : Math.round(((v - min) / (max - min)) * (BARS.length - 1))])
    .join('');
}
