// A step summary stays bounded however large the run: tables capped (the first or the last rows) with
// a line for the rest, outside text cut to a cell's length before it is escaped.

import { describe, expect, it } from 'vitest';
import { cappedTable, MAX_SUMMARY_ROWS, markdownCell } from '../../src/ci/summary-table.js';

describe('bounded step summaries', () => {
  const rows = Array.from({ length: 120 }, (_, i) => [String(i + 1)]);
  const more = (n: number) => `… and ${n} more`;

  it('caps a table at 50 rows, saying how many were left out; the first or the last kept', () => {
    const first = cappedTable(['n'], rows, { more }).split('\n');
    expect(first.slice(0, 3)).toEqual(['| n |', '| --- |', '| 1 |']);
    expect(first.filter((line) => /^\| \d+ \|$/.test(line))).toHaveLength(MAX_SUMMARY_ROWS);
    expect(first.at(-2)).toBe('… and 70 more');
    const last = cappedTable(['n'], rows, { more, keep: 'last' }).split('\n');
    expect(last[2]).toBe('| 71 |');
    expect(last.at(-4)).toBe('| 120 |');
    expect(cappedTable(['n'], rows.slice(0, 3), { more })).toBe('| n |\n| --- |\n| 1 |\n| 2 |\n| 3 |\n');
  });

  it('cuts outside text at whole characters, then escapes it', () => {
    expect(markdownCell('ab|c', 10)).toBe('ab\\|c');
    expect(markdownCell('😀'.repeat(10), 4)).toBe('😀😀😀…');
    expect(markdownCell(`<${'x'.repeat(500)}`, 5)).toBe('&lt;xxx…');
  });
});
