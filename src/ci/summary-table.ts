// Bounds on a step summary built from a run of any size. GitHub takes at most 1 MiB of summary per step
// and drops the whole of it past that ("$GITHUB_STEP_SUMMARY upload aborted"), and nobody reads a table
// of ten thousand tasks on a run's page anyway: so a table shows at most MAX_SUMMARY_ROWS rows and says
// how many it left out, and outside text (a task's id, a model's name, an error) is cut to what a cell
// can show before it is escaped.

import { markdownTable, markdownText } from './markdown.js';

export const MAX_SUMMARY_ROWS = 50;
const MAX_CELL_CHARS = 120;

/** Outside text as one cell or phrase: cut to `max` characters (whole code points, then "…"), escaped. */
export function markdownCell(text: string, max = MAX_CELL_CHARS): string {
  const chars = Array.from(text);
  return markdownText(chars.length > max ? `${chars.slice(0, max - 1).join('')}…` : text);
}

export interface CappedTable {
  /** The most rows shown (default MAX_SUMMARY_ROWS). */
  max?: number;
  /** Which rows are shown when there are more: the first (default) or the last. */
  keep?: 'first' | 'last';
  /** The line under the table for the rows left out: "… and 12 more tasks (`--json` lists them)". */
  more: (left: number) => string;
}

/** A table (cells already Markdown) of at most `max` rows, and a line saying how many were left out. */
export function cappedTable(
  header: readonly string[],
  rows: readonly (readonly string[])[],
  options: CappedTable,
): string {
  const max = options.max ?? MAX_SUMMARY_ROWS;
  if (rows.length <= max) return markdownTable(header, rows);
  const shown = options.keep === 'last' ? rows.slice(rows.length - max) : rows.slice(0, max);
  return `${markdownTable(header, shown)}\n${options.more(rows.length - max)}\n`;
}
