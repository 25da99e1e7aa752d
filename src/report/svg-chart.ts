// A line chart as inline SVG, for the HTML report: every series overlaid on shared axes, a line and a
// marker per point (a <circle class="point">, whose <title> names it on hover), and a legend. No
// script, no style sheet, nothing fetched: the colours are presentation attributes. The same chart
// gives the same bytes (numbers written with fixed decimals, series in the order given).

import { escapeHtml } from './escape.js';
import type { ReportChart } from './model.js';

/** Colours told apart by most readers (Okabe–Ito), one per series, cycling past eight. */
export const SERIES_COLOURS = [
  '#0072b2',
  '#e69f00',
  '#009e73',
  '#cc79a7',
  '#56b4e9',
  '#d55e00',
  '#f0e442',
  '#000000',
] as const;

const WIDTH = 720;
const HEIGHT = 320;
const PAD = { left: 64, right: 16, top: 16, bottom: 40 };
const LEGEND_ROW = 18;

const fmt = (value: number) => {
  const text = value.toFixed(1);
  return text === '-0.0' ? '0.0' : text;
};

/** A number for an axis label: four significant digits at most. */
function tick(value: number): string {
  if (value === 0 || Number.isInteger(value)) return String(value);
  return String(Number(value.toPrecision(4)));
}

function bounds(values: number[]): [number, number] {
  let [low, high] = [Math.min(...values), Math.max(...values)];
  if (low === high) [low, high] = [low - 1, high + 1];
  return [low, high];
}

/** The chart as an <svg> element (a string), or an empty string when no series has a point. */
export function svgChart(chart: ReportChart, index = 0): string {
  const points = chart.series
    .flatMap((s) => s.points)
    .filter((p) => Number.isFinite(p.x) && Number.isFinite(p.y));
  if (points.length === 0) return '';
  const [minX, maxX] = bounds(points.map((p) => p.x));
  const [minY, maxY] = bounds(points.map((p) => p.y));
  const legendHeight = chart.series.length * LEGEND_ROW + 8;
  const height = HEIGHT + legendHeight;
  const plotW = WIDTH - PAD.left - PAD.right;
  const plotH = HEIGHT - PAD.top - PAD.bottom;
  const sx = (x: number) => fmt(PAD.left + ((x - minX) / (maxX - minX)) * plotW);
  const sy = (y: number) => fmt(PAD.top + ((maxY - y) / (maxY - minY)) * plotH);
  const parts: string[] = [];
  const titleId = `chart-${index}-title`;
  parts.push(
    `<svg xmlns="http://www.w3.org/2000/svg" class="chart" role="img" aria-labelledby="${titleId}" viewBox="0 0 ${WIDTH} ${height}" width="${WIDTH}" height="${height}" data-points="${points.length}">`,
    `<title id="${titleId}">${escapeHtml(chart.title)}</title>`,
    `<rect x="${PAD.left}" y="${PAD.top}" width="${plotW}" height="${plotH}" fill="none" stroke="#999" stroke-width="1"/>`,
  );
  for (const y of [maxY, (minY + maxY) / 2, minY])
    parts.push(
      `<text class="tick" x="${PAD.left - 6}" y="${sy(y)}" text-anchor="end" dominant-baseline="middle" font-size="11">${escapeHtml(tick(y))}</text>`,
    );
  for (const x of [minX, maxX])
    parts.push(
      `<text class="tick" x="${sx(x)}" y="${PAD.top + plotH + 14}" text-anchor="middle" font-size="11">${escapeHtml(tick(x))}</text>`,
    );
  parts.push(
    `<text x="${PAD.left + plotW / 2}" y="${PAD.top + plotH + 32}" text-anchor="middle" font-size="12">${escapeHtml(chart.x_label)}</text>`,
    `<text x="14" y="${PAD.top + plotH / 2}" text-anchor="middle" font-size="12" transform="rotate(-90 14 ${PAD.top + plotH / 2})">${escapeHtml(chart.y_label)}</text>`,
  );
  chart.series.forEach((series, i) => {
    const colour = SERIES_COLOURS[i % SERIES_COLOURS.length]!;
    const drawn = series.points.filter((p) => Number.isFinite(p.x) && Number.isFinite(p.y));
    const sorted = [...drawn].sort((a, b) => a.x - b.x);
    parts.push(`<g class="series" data-series="${i}" data-label="${escapeHtml(series.label)}">`);
    if (sorted.length > 1)
      parts.push(
        `<polyline fill="none" stroke="${colour}" stroke-width="2" points="${sorted.map((p) => `${sx(p.x)},${sy(p.y)}`).join(' ')}"/>`,
      );
    for (const p of sorted) {
      const name = `${series.label}: ${p.label ?? `step ${tick(p.x)}`} = ${tick(p.y)}`;
      parts.push(
        `<circle class="point" cx="${sx(p.x)}" cy="${sy(p.y)}" r="3.5" fill="${colour}"><title>${escapeHtml(name)}</title></circle>`,
      );
    }
    parts.push('</g>');
    const ly = HEIGHT + 4 + i * LEGEND_ROW;
    parts.push(
      `<g class="legend-item" data-series="${i}"><rect x="${PAD.left}" y="${ly}" width="12" height="12" fill="${colour}"/><text x="${PAD.left + 18}" y="${ly + 10}" font-size="12">${escapeHtml(series.label)}</text></g>`,
    );
  });
  parts.push('</svg>');
  return parts.join('\n');
}
