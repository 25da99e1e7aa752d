// The HTML report in a real browser (Chromium, driven over the DevTools protocol by puppeteer-core):
// it renders (the title, the tables, the script ran under the page's own Content-Security-Policy),
// every chart has a marker per data point, hostile text stays text (no dialog, no script of its own),
// and nothing is fetched but the page itself, with the policy as written and with it taken out (so
// that it is the page, not only its policy, that loads nothing). Without Chromium the test is
// skipped, and says so loudly: install it (Debian: apt-get install -y chromium), or point
// AIP_TEST_CHROMIUM at a Chrome or Chromium binary.

import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compareReportData } from '../../src/report/compare.js';
import { renderHtml } from '../../src/report/html.js';
import type { ReportData } from '../../src/report/model.js';
import { HOSTILE, hostileReport } from './hostile.js';

function findChromium(): string | undefined {
  const given = process.env.AIP_TEST_CHROMIUM;
  if (given) return existsSync(given) ? given : undefined;
  for (const name of ['chromium', 'chromium-browser', 'google-chrome', 'google-chrome-stable']) {
    try {
      const path = execFileSync('sh', ['-c', `command -v ${name}`], { encoding: 'utf8' }).trim();
      if (path) return path;
    } catch {
      // not this one
    }
  }
  return undefined;
}

const chromium = findChromium();
if (!chromium)
  console.warn(
    '\n*** SKIPPED: test/report/report-browser.test.ts needs Chromium to open the HTML report in a real browser.\n' +
      '*** Install it (Debian/Ubuntu: apt-get install -y chromium; .ci/run does) or set AIP_TEST_CHROMIUM=/path/to/chrome.\n',
  );

/** Two series overlaid (5 points), and an eval's report full of hostile text. */
const compared = compareReportData({
  metric: 'reward',
  series: [
    {
      label: 'runs/first',
      points: [
        { x: 0, y: 0.1 },
        { x: 1, y: 0.4 },
        { x: 2, y: 0.3 },
      ],
    },
    {
      label: HOSTILE[0]!,
      points: [
        { x: 0, y: 0.2 },
        { x: 2, y: 0.9 },
      ],
    },
  ],
  title: `compare ${HOSTILE[1]}`,
});

const pointCounts = (data: ReportData) =>
  data.charts.map((c) => c.series.reduce((n, s) => n + s.points.length, 0));

describe.skipIf(!chromium)('the HTML report in Chromium', () => {
  let server: Server;
  let base: string;
  const pages = new Map<string, string>();
  const served: string[] = [];
  // biome-ignore lint/suspicious/noExplicitAny: puppeteer's Browser, imported only when Chromium is here
  let browser: any;

  beforeAll(async () => {
    server = createServer((request, response) => {
      served.push(request.url ?? '');
      const page = pages.get(request.url ?? '');
      response.writeHead(page ? 200 : 404, { 'content-type': 'text/html; charset=utf-8' });
      response.end(page ?? 'not found');
    });
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const puppeteer = (await import('puppeteer-core')).default;
    browser = await puppeteer.launch({
      executablePath: chromium,
      pipe: true,
      // Root in a container has no user namespace for Chromium's sandbox.
      args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
    });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await new Promise((done) => server?.close(done));
  });

  /** Opens `html` served at `path`; every request the page made, every dialog and console error. */
  async function open(path: string, html: string) {
    pages.set(path, html);
    served.length = 0;
    const page = await browser.newPage();
    const requested: string[] = [];
    const dialogs: string[] = [];
    const errors: string[] = [];
    page.on('request', (r: { url(): string }) => requested.push(r.url()));
    page.on('dialog', async (d: { message(): string; dismiss(): Promise<void> }) => {
      dialogs.push(d.message());
      await d.dismiss();
    });
    page.on('console', (m: { type(): string; text(): string }) => {
      if (m.type() === 'error') errors.push(m.text());
    });
    page.on('pageerror', (e: Error) => errors.push(e.message));
    await page.goto(`${base}${path}`, { waitUntil: 'networkidle0' });
    return { page, requested, dialogs, errors };
  }

  for (const [name, data] of [
    ['a comparison', compared],
    ['an eval with hostile text', hostileReport()],
  ] as const) {
    it(`renders ${name}: title, tables, a marker per point, the script run, nothing fetched`, async () => {
      const path = `/report-${name.replace(/\W+/g, '-')}.html`;
      const { page, requested, dialogs, errors } = await open(path, renderHtml(data));
      const seen = await page.evaluate(`({
        title: document.title,
        h1: document.querySelector('h1')?.textContent,
        ready: document.body.getAttribute('data-ready'),
        tables: document.querySelectorAll('table.data').length,
        scripts: document.querySelectorAll('script').length,
        foreign: document.querySelectorAll('img, iframe, object, embed, link[rel=stylesheet], a[href]').length,
        charts: [...document.querySelectorAll('svg.chart')].map((svg) => ({
          markers: svg.querySelectorAll('circle.point').length,
          declared: Number(svg.getAttribute('data-points')),
          width: svg.getBoundingClientRect().width,
        })),
      })`);
      expect(seen.title).toBe(data.title);
      expect(seen.h1).toBe(data.title);
      // The script ran: allowed by its hash in the policy.
      expect(seen.ready).toBe('true');
      expect(seen.tables).toBe(data.tables.length + (data.tasks ? 1 : 0) + (data.samples?.length ?? 0));
      expect(seen.scripts).toBe(1);
      expect(seen.foreign).toBe(0);
      expect(seen.charts.map((c: { markers: number }) => c.markers)).toEqual(pointCounts(data));
      expect(seen.charts.map((c: { declared: number }) => c.declared)).toEqual(pointCounts(data));
      expect(seen.charts.every((c: { width: number }) => c.width > 100)).toBe(true);
      expect(dialogs).toEqual([]);
      expect(errors).toEqual([]);
      // Only the page itself was asked for, of the server and by the browser.
      expect(served).toEqual([path]);
      expect(requested.filter((u) => !u.startsWith('data:'))).toEqual([`${base}${path}`]);
      await page.close();
    }, 30_000);
  }

  it('fetches nothing even with its Content-Security-Policy taken out', async () => {
    const html = renderHtml(hostileReport()).replace(
      /<meta http-equiv="Content-Security-Policy"[^>]*>\n/,
      '',
    );
    expect(html).not.toContain('Content-Security-Policy');
    const { page, requested, dialogs } = await open('/no-policy.html', html);
    expect(await page.evaluate(`document.body.getAttribute('data-ready')`)).toBe('true');
    expect(dialogs).toEqual([]);
    expect(served).toEqual(['/no-policy.html']);
    expect(requested.filter((u) => !u.startsWith('data:'))).toEqual([`${base}/no-policy.html`]);
    await page.close();
  }, 30_000);

  it('sorts a table by a column when its header is clicked (the script works)', async () => {
    const { page } = await open('/sort.html', renderHtml(hostileReport()));
    const firstColumn = () =>
      page.evaluate(
        `[...document.querySelectorAll('section.tasks tbody tr')].map((r) => r.cells[3].textContent)`,
      );
    const before: string[] = await firstColumn();
    await page.click('section.tasks th:nth-child(4)');
    const after: string[] = await firstColumn();
    expect(after).toEqual([...before].sort((a, b) => Number(a) - Number(b)));
    await page.close();
  }, 30_000);
});
