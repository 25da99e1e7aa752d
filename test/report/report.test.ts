// The report renderers (src/report/): hostile text escaped, nothing that loads, the same data giving
// the same bytes, Markdown within GitHub's comment limit, and the file written atomically.

import { mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/errors/errors.js';
import { compareReportData } from '../../src/report/compare.js';
import { parseEvalDocument } from '../../src/report/eval-document.js';
import { CONTENT_SECURITY_POLICY, renderHtml } from '../../src/report/html.js';
import { GITHUB_COMMENT_LIMIT, renderMarkdown } from '../../src/report/markdown.js';
import { reportFormat, writeReport } from '../../src/report/write.js';
import { tempDir } from '../helpers/temp.js';
import { hostileReport } from './hostile.js';

/** The page's tags as written: escaped text holds no "<". */
const tags = (html: string) => html.match(/<[a-zA-Z](?:"[^"]*"|'[^']*'|[^>"'])*>/g) ?? [];

/** Every attribute of those tags, [name, value], quoted values taken whole. */
const attributes = (html: string) =>
  tags(html).flatMap((t) =>
    [...t.matchAll(/\s([^\s=>"'/]+)=("[^"]*"|'[^']*'|[^\s>]+)/g)].map((m) => [m[1]!, m[2]!] as const),
  );

describe('the HTML report', () => {
  it('escapes every hostile string: none of them is markup in the page', () => {
    const html = renderHtml(hostileReport());
    expect(html).not.toMatch(/<script>alert/);
    expect(html).not.toMatch(/<img|<iframe|<a href|<link rel=stylesheet/i);
    // The tags of the page (escaped text has no "<"): none with an event handler.
    expect(attributes(html).filter(([name]) => /^on/i.test(name))).toEqual([]);
    // One script and one style element: the page's own.
    expect(html.match(/<script\b/g)).toHaveLength(1);
    expect(html.match(/<style\b/g)).toHaveLength(1);
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(html).toContain('&quot;&gt;&lt;img src=x onerror=alert(3)&gt;');
  });

  it('loads nothing: no URL that fetches, and a policy that forbids it', () => {
    const html = renderHtml(hostileReport());
    expect(html).toContain(`content="${CONTENT_SECURITY_POLICY}"`);
    expect(CONTENT_SECURITY_POLICY).toMatch(
      /^default-src 'none'; style-src 'sha256-[^']+'; script-src 'sha256-[^']+'/,
    );
    // Attributes that fetch: only the icon, a data: URL (which is no request).
    const fetching = attributes(html)
      .filter(([name]) =>
        /^(src|href|srcset|action|formaction|poster|data|xlink:href|background)$/i.test(name),
      )
      .map(([name, value]) => `${name}=${value}`);
    expect(fetching).toEqual(['href="data:,"']);
    expect(html).not.toMatch(/url\(|@import|@font-face/);
  });

  it('gives the same bytes for the same data', () => {
    expect(renderHtml(hostileReport())).toBe(renderHtml(hostileReport()));
  });

  it('draws a marker per point, in one chart for all the series', () => {
    const data = compareReportData({
      metric: 'reward',
      series: [
        {
          label: 'a',
          points: [
            { x: 0, y: 0.1 },
            { x: 1, y: 0.4 },
            { x: 2, y: 0.3 },
          ],
        },
        {
          label: 'b',
          points: [
            { x: 0, y: 0.2 },
            { x: 2, y: 0.9 },
          ],
        },
      ],
    });
    const html = renderHtml(data);
    expect(html.match(/<circle class="point"/g)).toHaveLength(5);
    expect(html.match(/<svg /g)).toHaveLength(1);
    expect(html).toContain('data-points="5"');
  });
});

describe('the Markdown report', () => {
  it('escapes table cells and HTML, and keeps samples in collapsed details', () => {
    const md = renderMarkdown(hostileReport());
    // Outside fenced code blocks (which GitHub shows as they are written), no markup from the data.
    const outsideCode = md.replace(/^(`{3,})[^\n]*\n[\s\S]*?^\1$/gm, '');
    expect(outsideCode).not.toMatch(/<script>|<img|<iframe|<a href|<link/);
    expect(outsideCode).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    // A | in a cell is escaped: each table row has as many cells as its header.
    const tableLines = md.split('\n').filter((l) => l.startsWith('| '));
    for (const line of tableLines) expect(line.replace(/\\\|/g, '').split('|').length).toBeGreaterThan(2);
    expect(md).toContain('<details>\n<summary>');
    // The details of a task cannot be closed early by its own text: that text is escaped.
    expect(outsideCode).not.toContain('</details><details open>');
    expect(outsideCode.match(/<details>/g)!.length).toBe(outsideCode.match(/<\/details>/g)!.length);
  });

  it('draws a Mermaid chart and a sparkline per series', () => {
    const md = renderMarkdown(
      compareReportData({
        metric: 'reward',
        series: [
          {
            label: 'run',
            points: [
              { x: 0, y: 0 },
              { x: 1, y: 1 },
            ],
          },
        ],
      }),
    );
    expect(md).toContain('```mermaid\nxychart-beta');
    expect(md).toMatch(/\| run \| 2 \| ▁█ \|/);
  });

  it("stays within GitHub's comment limit, cutting the samples first with a note", () => {
    const data = hostileReport();
    data.samples = Array.from({ length: 400 }, (_, i) => ({
      task: `task-${i}`,
      samples: [{ checkpoint: 'a:step2', reward: 1, text: 'x'.repeat(3000) }],
    }));
    const md = renderMarkdown(data);
    expect(md.length).toBeLessThanOrEqual(GITHUB_COMMENT_LIMIT);
    expect(md).toMatch(
      /_The samples of \d+ of 400 tasks are left out: GitHub's comment limit is 65,536 characters/,
    );
    expect(md).toContain('Tasks that changed');
    expect(md.match(/<details>/g)!.length).toBe(md.match(/<\/details>/g)!.length);
    expect(renderMarkdown(data)).toBe(md);
  });

  it('cuts the rows of a table too long for the limit, saying so', () => {
    const data = hostileReport();
    data.samples = undefined;
    data.tasks!.diffs = Array.from({ length: 5000 }, (_, i) => ({
      id: `task-${i}`,
      means: [0, 1, 1],
      change: 1,
    }));
    const md = renderMarkdown(data);
    expect(md.length).toBeLessThanOrEqual(GITHUB_COMMENT_LIMIT);
    expect(md).toMatch(/_\d+ of 5000 rows left out to fit GitHub's comment limit._/);
  });
});

describe('writing a report', () => {
  it('takes its format from the name, and refuses any other', () => {
    expect(reportFormat('a.html')).toBe('html');
    expect(reportFormat('A.HTM')).toBe('html');
    expect(reportFormat('a.md')).toBe('markdown');
    expect(() => reportFormat('a.txt')).toThrow(UsageError);
  });

  it('replaces the file atomically, through a link, leaving no temporary file', async () => {
    const dir = tempDir('aip-report-');
    const target = join(dir, 'real.html');
    writeFileSync(target, 'old');
    symlinkSync(target, join(dir, 'link.html'));
    expect(await writeReport(join(dir, 'link.html'), hostileReport())).toBe('html');
    expect(readFileSync(target, 'utf8')).toBe(renderHtml(hostileReport()));
    expect(readdirSync(dir).sort()).toEqual(['link.html', 'real.html']);
    await writeReport(join(dir, 'r.md'), hostileReport());
    expect(readFileSync(join(dir, 'r.md'), 'utf8')).toBe(renderMarkdown(hostileReport()));
  });

  it('says which file it could not write (exit 1: the results were computed)', async () => {
    const dir = tempDir('aip-report-');
    mkdirSync(join(dir, 'taken.html'));
    await expect(writeReport(join(dir, 'taken.html'), hostileReport())).rejects.toThrow(/taken\.html/);
  });
});

describe('an eval document read back', () => {
  it('names the file and the field at fault', () => {
    const bad = (value: unknown) => () => parseEvalDocument(value, 'e.json');
    expect(bad([])).toThrow('e.json: (top): expected the JSON object aip eval --json prints');
    expect(bad({ seed: 0 })).toThrow('e.json: checkpoints: missing');
    expect(bad({ seed: 0, pass_threshold: 1, checkpoints: [{ model: 'a' }] })).toThrow(
      'e.json: checkpoints[0].uri: expected a string',
    );
    expect(
      bad({
        seed: 0,
        pass_threshold: 1,
        checkpoints: [
          { model: 'a', uri: 'u', samples: 1, mean: 'high', std: null, pass_rate: null, failed: 0 },
        ],
      }),
    ).toThrow('e.json: checkpoints[0].mean: expected a number');
  });
});

describe('compare summary', () => {
  it('takes the lowest value as the best of a loss, the highest otherwise, as :best does', async () => {
    const { summarize } = await import('../../src/report/compare.js');
    const series = { label: 's', points: [0.9, 0.4, 0.6].map((y, x) => ({ x, y })) };
    expect(summarize(series, 'loss').best).toBe(0.4);
    expect(summarize(series, 'policy_loss').best).toBe(0.4);
    expect(summarize(series, 'reward').best).toBe(0.9);
  });
});
