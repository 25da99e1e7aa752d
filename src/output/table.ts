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

/**
 * A line break inside a cell as sanitize shows controls (the notation of `cat -v`): LF as ^J, CR as ^M,
 * the Unicode line and paragraph separators as <U+2028> and <U+2029> (NEL, VT and FF sanitize shows
 * already). A line break from a server would otherwise start a row of its own: a forged one.
 */
const LINE_BREAK = /[\n\r\u2028\u2029]/g;
const shownBreak = (ch: string) =>
  ch === '\n' ? '^J' : ch === '\r' ? '^M' : `<U+${ch.charCodeAt(0).toString(16).toUpperCase()}>`;

/** A cell as text, its controls and line breaks shown as sanitize shows them: columns align on what is seen. */
export function cellText(value: unknown): string {
  if (value === undefined || value === null) return '';
  if (value instanceof Date) return value.toISOString();
  const text = typeof value === 'object' ? JSON.stringify(value) : String(value);
  return sanitize(text).replace(LINE_BREAK, shownBreak);
}

/** A TSV field: a tab would split the record's fields, so it becomes a space (line breaks are shown already). */
export function tsvField(text: string): string {
  return text.replace(/[\t\r\n\u2028\u2029]+/g, ' ');
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
  const table = tableWriter(io, columns, options);
  table.add(rows);
  table.end();
}

export interface TableWriter<T> {
  /** Rows as they come (a page of a list): written at once when piped, on a terminal once aligned. */
  add(rows: readonly T[]): void;
  /** The last rows written (or the `empty` hint said). */
  end(): void;
}

/**
 * Rows are written as they come, a page at a time: on a terminal the columns are as wide as the first
 * page needs (100 rows of a list, all of them for printTable), and stay so (a wider cell later pushes
 * only its own row); piped, as TSV. So a long list (`--all`) is shown as its pages arrive, and a
 * reader that goes away (a pager that quit, `| head`) stops it early.
 */
export function tableWriter<T>(
  io: IO,
  columns: ReadonlyArray<Column<T>>,
  options: { empty?: string } = {},
): TableWriter<T> {
  const headers = columns.map((c) => c.header.toUpperCase());
  const last = columns.length - 1;
  let widths: number[] | undefined;
  let held: T[] = [];
  let count = 0;
  const cellsOf = (row: T) => columns.map((c) => cellText(c.value(row)));
  const flush = () => {
    const rows = held;
    held = [];
    const cells = rows.map(cellsOf);
    if (!widths) {
      widths = headers.map((h, i) => Math.max(width(h), ...cells.map((line) => width(line[i] ?? ''))));
      io.out(headers.map((h, i) => io.style.bold(h) + pad(h, i)).join(''));
    }
    cells.forEach((line, r) => {
      const row = rows[r]!;
      const rendered = line.map((text, i) => {
        const color = columns[i]!.color;
        return (color ? color(text, row, io.style) : text) + pad(text, i);
      });
      io.out(rendered.join('').trimEnd());
    });
  };
  const pad = (text: string, i: number) =>
    i === last ? '' : ' '.repeat(Math.max(0, widths![i]! - width(text)) + 2);
  return {
    add(rows) {
      count += rows.length;
      if (!io.isStdoutTTY) {
        for (const row of rows) io.out(cellsOf(row).map(tsvField).join('\t'));
        return;
      }
      held.push(...rows);
      if (held.length > 0) flush();
    },
    end() {
      if (count === 0 && options.empty !== undefined) {
        io.info(options.empty);
        return;
      }
      if (io.isStdoutTTY && (held.length > 0 || !widths)) flush();
    },
  };
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
