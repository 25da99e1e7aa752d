// How traces and spans look at a terminal and in a pipe: the list's columns, one span's line (for
// `tail --spans`), and `show`'s tree with a waterfall. Names and attributes come from spans, so each
// goes through cellText (controls and line breaks shown, not acted on) before its width is measured,
// and the IO sanitises whatever is written all the same.

import type { ChalkInstance } from 'chalk';
import type { IO } from '../../output/io.js';
import { thousands } from '../../output/plural.js';
import { type Column, cellText } from '../../output/table.js';
import { formatDuration, showTime } from '../../output/time.js';
import { compareNanos, type SpanView, type TraceSummary } from './model.js';
import type { TreeLine } from './tree.js';

/** 0.42ms, 37ms, 1.25s, 2m5s. */
export function spanDuration(ms: number): string {
  if (ms < 1) return `${Number(ms.toFixed(2))}ms`;
  if (ms < 1000) return `${Math.round(ms)}ms`;
  if (ms < 60_000) return `${Number((ms / 1000).toFixed(2))}s`;
  return formatDuration(ms);
}

/** 1234 as "1234", 12345 as "12.3k" on a terminal; whole when piped. */
function count(n: number, tty: boolean): string {
  if (!tty || n < 10_000) return String(n);
  if (n < 1_000_000) return `${(n / 1000).toFixed(1)}k`;
  return `${(n / 1_000_000).toFixed(1)}M`;
}

export function tokensText(input: number | null, output: number | null, tty: boolean): string {
  if (!input && !output) return '';
  return `${count(input ?? 0, tty)}/${count(output ?? 0, tty)}`;
}

/** The trace id as the list shows it: its first 12 hex digits on a terminal (show takes a prefix), whole piped. */
export function shortId(id: string, tty: boolean): string {
  return tty ? id.slice(0, 12) : id;
}

const red = (text: string, style: ChalkInstance) => (text && text !== '0' ? style.red(text) : text);

export function traceColumns(io: IO): Array<Column<TraceSummary>> {
  const tty = io.isStdoutTTY;
  return [
    { header: 'trace', value: (t) => shortId(t.trace_id, tty) },
    { header: 'root', value: (t) => t.root },
    { header: 'start', value: (t) => showTime(io, t.start) },
    { header: 'duration', value: (t) => spanDuration(t.duration_ms) },
    { header: 'spans', value: (t) => t.spans },
    { header: 'errors', value: (t) => t.errors, color: (text, _t, style) => red(text, style) },
    { header: 'tokens in/out', value: (t) => tokensText(t.input_tokens, t.output_tokens, tty) },
    { header: 'models', value: (t) => t.models.join(tty ? ', ' : ',') },
  ];
}

export function spanColumns(io: IO): Array<Column<SpanView>> {
  const tty = io.isStdoutTTY;
  return [
    { header: 'trace', value: (s) => shortId(s.trace_id, tty) },
    { header: 'span', value: (s) => s.span_id },
    { header: 'name', value: (s) => s.name },
    { header: 'start', value: (s) => showTime(io, s.start) },
    { header: 'duration', value: (s) => spanDuration(s.duration_ms) },
    {
      header: 'status',
      value: (s) => s.status,
      color: (text, _s, style) => (text === 'error' ? style.red(text) : text),
    },
    { header: 'model', value: (s) => s.model },
    { header: 'tokens in/out', value: (s) => tokensText(s.input_tokens, s.output_tokens, tty) },
    { header: 'tool', value: (s) => s.tool },
  ];
}

const width = (text: string) => [...text].length;

function fitTo(text: string, room: number): string {
  const chars = [...text];
  if (chars.length <= room) return text + ' '.repeat(room - chars.length);
  return `${chars.slice(0, Math.max(0, room - 1)).join('')}…`;
}

/** The waterfall: where the span lies within the trace, `columns` wide. */
function bar(span: SpanView, start: string, totalMs: number, columns: number): string {
  if (columns <= 0) return '';
  const offsetMs = Math.max(0, nanosAfter(start, span.start_ns));
  const from = totalMs > 0 ? Math.min(columns - 1, Math.floor((offsetMs / totalMs) * columns)) : 0;
  const length = totalMs > 0 ? Math.max(1, Math.round((span.duration_ms / totalMs) * columns)) : columns;
  const to = Math.min(columns, from + length);
  return `${' '.repeat(from)}${'█'.repeat(to - from)}${' '.repeat(columns - to)}`;
}

function nanosAfter(a: string, b: string): number {
  return compareNanos(a, b) <= 0 && /^\d+$/.test(a) && /^\d+$/.test(b)
    ? Number((BigInt(b) - BigInt(a)) / 1000n) / 1000
    : 0;
}

/** What a span's line says after its name: status, model, tokens, tool. */
function details(span: SpanView, tty: boolean, style: ChalkInstance): string {
  const parts: string[] = [];
  if (span.status === 'error') {
    const message = span.status_message ? `: ${cellText(span.status_message)}` : '';
    parts.push(style.red(`error${message}`));
  }
  if (span.model) parts.push(cellText(span.model));
  const tokens = tokensText(span.input_tokens, span.output_tokens, tty);
  if (tokens) parts.push(`${tokens} tokens`);
  if (span.tool) parts.push(`tool ${cellText(span.tool)}`);
  return parts.join('  ');
}

/** The head of `show`: the trace in one line. */
export function traceHeading(io: IO, t: TraceSummary): string {
  const tokens = tokensText(t.input_tokens, t.output_tokens, io.isStdoutTTY);
  const parts = [
    io.style.bold(`trace ${t.trace_id}`),
    cellText(t.root),
    showTime(io, t.start),
    spanDuration(t.duration_ms),
    `${thousands(t.spans)} span${t.spans === 1 ? '' : 's'}`,
    t.errors > 0 ? io.style.red(`${t.errors} error${t.errors === 1 ? '' : 's'}`) : '',
    tokens ? `${tokens} tokens` : '',
  ];
  return parts.filter((p) => p !== '').join('  ');
}

/**
 * `show`'s tree. On a terminal: the tree and names (cut to fit), each span's duration and a waterfall
 * bar as wide as the terminal allows, then its details; piped, the same lines without the bar.
 */
export function treeLines(io: IO, lines: readonly TreeLine[], trace: TraceSummary): string[] {
  const tty = io.isStdoutTTY;
  const labels = lines.map((line) => `${line.prefix}${cellText(line.span.name)}`);
  const durations = lines.map((line) => spanDuration(line.span.duration_ms));
  const durationWidth = Math.max(0, ...durations.map(width));
  const columns = io.columns;
  const labelWidth = Math.min(Math.max(8, ...labels.map(width)), Math.max(16, Math.floor(columns * 0.4)));
  const barWidth = tty ? Math.max(10, Math.min(60, columns - labelWidth - durationWidth - 30)) : 0;
  const start = lines.reduce(
    (min, l) => (compareNanos(l.span.start_ns, min) < 0 ? l.span.start_ns : min),
    lines[0]?.span.start_ns ?? '0',
  );
  return lines.map((line, i) => {
    const label = tty ? fitTo(labels[i]!, labelWidth) : labels[i]!;
    const duration = durations[i]!.padStart(durationWidth);
    const drawn = tty ? bar(line.span, start, trace.duration_ms, barWidth) : '';
    const colored = line.span.status === 'error' ? io.style.red(drawn) : io.style.cyan(drawn);
    const rest = details(line.span, tty, io.style);
    return [label, duration, ...(tty ? [colored] : []), rest].join('  ').trimEnd();
  });
}
