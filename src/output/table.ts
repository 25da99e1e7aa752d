// Lists for people and for scripts: on a terminal, aligned columns under a header (with colour when
// on); piped, tab-separated rows with no header and no colour, one record per line (as gh does).

import type { ChalkInstance } from 'chalk';
import type { IO } from './io.js';
import { sanitize } from './sanitize.js';

export interface Column<T> {
  header: string;
  value: (row: T) => unknown;
  /** Colours a cell on a terminal; gets the plain text, so alignment is computed without escapes. */
  color?: (text: string, row: T, style: ChalkInstance) => string;
}

/** A cell as text, its controls already shown as sanitize shows them: columns align on what is seen. */
export function cellText(value: unknown): string {
  if (value === undefined || value === null) return '';
  if (value instanceof Date) return value.toISOString();
  if (typeof value === 'object') return sanitize(JSON.stringify(value));
  return sanitize(String(value));
}

/** A TSV field: tabs and line breaks would split records, so they become spaces. */
function tsvField(text: string): string {
  return text.replace(/[\t\r\n]+/g, ' ');
}

function width(text: string): number {
  return [...text].length;
}

/**
 * `empty`: what to say (on stderr, as a hint) when there are no rows, instead of a lone header: an
 * empty list is a result, and silence would leave a person wondering whether anything happened.
 */
export function printTable<T>(
  io: IO,
  rows: readonly T[],
  columns: ReadonlyArray<Column<T>>,
  options: { empty?: string } = {},
): void {
  if (rows.length === 0 && options.empty !== undefined) {
    io.info(options.empty);
    return;
  }
  const cells = rows.map((row) => columns.map((c) => cellText(c.value(row))));
  if (!io.isStdoutTTY) {
    for (const line of cells) io.out(line.map(tsvField).join('\t'));
    return;
  }
  const headers = columns.map((c) => c.header.toUpperCase());
  const widths = headers.map((h, i) => Math.max(width(h), ...cells.map((line) => width(line[i] ?? ''))));
  const last = columns.length - 1;
  const pad = (text: string, i: number) => (i === last ? '' : ' '.repeat(widths[i]! - width(text) + 2));
  io.out(headers.map((h, i) => io.style.bold(h) + pad(h, i)).join(''));
  cells.forEach((line, r) => {
    const row = rows[r]!;
    const rendered = line.map((text, i) => {
      const color = columns[i]!.color;
      return (color ? color(text, row, io.style) : text) + pad(text, i);
    });
    io.out(rendered.join('').trimEnd());
  });
}

/** One record as "label  value" lines on a terminal, "label<TAB>value" when piped. */
export function printFields(io: IO, fields: ReadonlyArray<[label: string, value: unknown]>): void {
  if (!io.isStdoutTTY) {
    for (const [label, value] of fields) io.out(`${label}\t${tsvField(cellText(value))}`);
    return;
  }
  const labelWidth = Math.max(...fields.map(([label]) => width(label)));
  for (const [label, value] of fields) {
    io.out(`${io.style.bold(label)}${' '.repeat(labelWidth - width(label) + 2)}${cellText(value)}`);
  }
}
