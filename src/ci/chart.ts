// A metric over the steps of a job, as a chart that renders in a GitHub step summary:
//
//   lineChart({ title: 'reward', xLabel: 'step', yLabel: 'reward', points: [{ x: 1, y: 0.1 }, …] })
//     → "```mermaid\nxychart-beta\n  title \"reward\"\n  x-axis \"step\" [\"1\", …]\n  y-axis …\n  line […]\n```\n"
//     or undefined when fewer than two points can be drawn.
//
// Mermaid rather than an inline SVG: GitHub renders ```mermaid blocks in Markdown, step summaries
// included (announced with job summaries: github.blog, 2022-05-09, "Supercharging GitHub Actions with
// Job Summaries"; xychart-beta needs Mermaid 10.5 or later), whereas its Markdown sanitiser strips
// <svg> elements and data: URIs in <img>, so an SVG would need a file hosted somewhere. The price is xychart-beta's grammar: one y-axis and no legend,
// so each metric gets a chart of its own (reward and loss differ in scale anyway: call this once per
// metric). The x-axis is categorical (the step numbers as labels): a numeric one would space the
// points evenly whatever their steps.
//
// What is emitted stays within the grammar whatever the input: labels are quoted and hold no quote,
// line break or other character the lexer could take for syntax (nor anything that could end the
// fenced block); numbers are finite and written without an exponent, which the lexer does not read;
// the points are thinned to at most `maxPoints` (first and last kept), as labels beyond that overlap.

export interface ChartPoint {
  x: number;
  y: number;
}

export interface LineChartSpec {
  title: string;
  xLabel: string;
  yLabel: string;
  points: readonly ChartPoint[];
  /** At most this many points are drawn (default 50). */
  maxPoints?: number;
}

const DEFAULT_MAX_POINTS = 50;
const MAX_LABEL = 80;

/** A ```mermaid block (ending in a line break), or undefined when fewer than two points are drawable. */
export function lineChart(spec: LineChartSpec): string | undefined {
  const drawable = spec.points.filter((p) => plottable(p.x) && plottable(p.y));
  if (drawable.length < 2) return undefined;
  const points = thin(drawable, Math.max(2, spec.maxPoints ?? DEFAULT_MAX_POINTS));
  const ys = points.map((p) => p.y);
  const [low, high] = yRange(Math.min(...ys), Math.max(...ys));
  return [
    '```mermaid',
    'xychart-beta',
    `  title ${label(spec.title)}`,
    `  x-axis ${label(spec.xLabel)} [${points.map((p) => label(mermaidNumber(p.x))).join(', ')}]`,
    `  y-axis ${label(spec.yLabel)} ${mermaidNumber(low)} --> ${mermaidNumber(high)}`,
    `  line [${ys.map(mermaidNumber).join(', ')}]`,
    '```',
    '',
  ].join('\n');
}

/**
 * Finite, and small enough that toFixed writes it, and the axis's margin around it, without an
 * exponent (it does from 1e21). No metric of a training run comes near.
 */
function plottable(value: number): boolean {
  return Number.isFinite(value) && Math.abs(value) < 1e15;
}

/** Evenly spaced points, the first and the last among them. */
function thin(points: readonly ChartPoint[], max: number): ChartPoint[] {
  if (points.length <= max) return [...points];
  return Array.from({ length: max }, (_, i) => points[Math.round((i * (points.length - 1)) / (max - 1))]!);
}

/**
 * The y-axis range: the values with a margin of a twentieth of their span, and at least one the six
 * digits written can tell from the values (all equal, or apart by less than that, they still need
 * min < max).
 */
function yRange(min: number, max: number): [number, number] {
  const visible = 1e-4 * Math.max(1, Math.abs(min), Math.abs(max));
  const margin = Math.max((max - min) * 0.05, visible);
  return [min - margin, max + margin];
}

/** Six significant digits at most, in plain decimal notation. */
export function mermaidNumber(value: number): string {
  if (value === 0) return '0';
  const decimals = Math.min(20, Math.max(0, 5 - Math.floor(Math.log10(Math.abs(value)))));
  let text = value.toFixed(decimals);
  if (text.includes('.')) text = text.replace(/\.?0+$/, '');
  return text === '-0' ? '0' : text;
}

/** Text as a quoted label: letters, digits and plain punctuation only, on one line. */
export function label(text: string): string {
  const safe = text
    .replace(/[^\p{L}\p{N} .,:()/+\-_=]/gu, ' ')
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, MAX_LABEL)
    .trim();
  return `"${safe}"`;
}
