// The HTML report: one self-contained page. Everything it shows is in the file: the style sheet and
// the script inline, the charts inline SVG (svg-chart.ts), no font, image, frame or link that loads.
// A Content-Security-Policy in the page says so to the browser too: nothing may be fetched (default-src
// 'none'), and only the page's own style sheet and script run (allowed by their hashes), so even text
// that got past the escaping could neither load nor run anything. Every string from outside is escaped
// (escape.ts). The same data gives the same bytes: no time, no random id.
//
// The script only makes the page nicer to read (sort a table by a column, hide a series by clicking
// its legend); the page says everything without it.

import { createHash } from 'node:crypto';
import { escapeHtml } from './escape.js';
import {
  type ReportCell,
  type ReportData,
  type ReportTable,
  type ReportTaskSamples,
  type ReportTasks,
  reportNumber,
  signedNumber,
} from './model.js';
import { svgChart } from './svg-chart.js';

const STYLE = `
:root { color-scheme: light dark; font-family: system-ui, -apple-system, "Segoe UI", sans-serif; }
body { margin: 2rem auto; max-width: 64rem; padding: 0 1rem; line-height: 1.45; }
h1 { font-size: 1.6rem; } h2 { font-size: 1.2rem; margin-top: 2rem; }
table { border-collapse: collapse; margin: 0.5rem 0; }
th, td { border: 1px solid #8884; padding: 0.25rem 0.6rem; text-align: left; vertical-align: top; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
th { cursor: pointer; background: #8881; }
.up { color: #1a7f37; } .down { color: #cf222e; }
svg.chart { max-width: 100%; height: auto; background: #fff; color: #000; }
svg.chart text { fill: #222; }
.legend-item { cursor: pointer; }
.off { opacity: 0.15; }
pre { white-space: pre-wrap; word-break: break-word; background: #8881; padding: 0.5rem; margin: 0; }
details { margin: 0.5rem 0; } summary { cursor: pointer; }
`;

const SCRIPT = `
(function () {
  "use strict";
  var cellValue = function (cell) {
    var v = cell.getAttribute("data-value");
    return v === null ? cell.textContent : Number(v);
  };
  document.querySelectorAll("table.data").forEach(function (table) {
    table.querySelectorAll("th").forEach(function (th, column) {
      var ascending = true;
      th.addEventListener("click", function () {
        var body = table.tBodies[0];
        var rows = Array.prototype.slice.call(body.rows);
        rows.sort(function (a, b) {
          var x = cellValue(a.cells[column]), y = cellValue(b.cells[column]);
          var order = typeof x === "number" && typeof y === "number" ? x - y : String(x).localeCompare(String(y));
          return ascending ? order : -order;
        });
        ascending = !ascending;
        rows.forEach(function (row) { body.appendChild(row); });
      });
    });
  });
  document.querySelectorAll("svg.chart").forEach(function (svg) {
    svg.querySelectorAll(".legend-item").forEach(function (item) {
      item.addEventListener("click", function () {
        var series = svg.querySelector('.series[data-series="' + item.getAttribute("data-series") + '"]');
        if (series) series.classList.toggle("off");
        item.classList.toggle("off");
      });
    });
  });
  document.body.setAttribute("data-ready", "true");
})();
`;

const hash = (text: string) => `'sha256-${createHash('sha256').update(text).digest('base64')}'`;

/** The page's policy: nothing fetched, nothing run but its own style sheet and script. */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  `style-src ${hash(STYLE)}`,
  `script-src ${hash(SCRIPT)}`,
  'img-src data:',
  "base-uri 'none'",
  "form-action 'none'",
].join('; ');

function cell(value: ReportCell): string {
  if (typeof value === 'number' && Number.isFinite(value))
    return `<td class="num" data-value="${value}">${escapeHtml(reportNumber(value))}</td>`;
  if (value === null) return '<td class="num" data-value="-Infinity">–</td>';
  return `<td>${escapeHtml(String(value))}</td>`;
}

function table(columns: readonly string[], rows: ReadonlyArray<readonly string[]>): string {
  const head = columns.map((c) => `<th scope="col">${escapeHtml(c)}</th>`).join('');
  return `<table class="data"><thead><tr>${head}</tr></thead><tbody>\n${rows.map((r) => `<tr>${r.join('')}</tr>`).join('\n')}\n</tbody></table>`;
}

function tableSection(t: ReportTable): string {
  const body =
    t.rows.length === 0
      ? `<p>${escapeHtml(t.empty ?? 'Nothing to show.')}</p>`
      : table(
          t.columns,
          t.rows.map((r) => r.map(cell)),
        );
  return `<section class="table"><h2>${escapeHtml(t.caption)}</h2>\n${body}</section>`;
}

function changeCell(change: number | null): string {
  const kind = change === null || change === 0 ? '' : change > 0 ? ' up' : ' down';
  return `<td class="num${kind}" data-value="${change ?? '-Infinity'}">${escapeHtml(signedNumber(change))}</td>`;
}

function tasksSection(tasks: ReportTasks): string {
  const rows = tasks.diffs.map((t) => [
    `<td>${escapeHtml(t.id)}</td>`,
    ...t.means.map(cell),
    changeCell(t.change),
  ]);
  const body =
    rows.length === 0
      ? '<p>No task has a different mean reward under these checkpoints.</p>'
      : table(['task', ...tasks.checkpoints, 'change'], rows);
  const c = tasks.counts;
  const counts = c
    ? `<p class="counts">${escapeHtml(`${tasks.checkpoints[0]} → ${tasks.checkpoints.at(-1)}: ${c.improved} improved, ${c.worse} worse, ${c.unchanged} unchanged${c.unscored ? `, ${c.unscored} not scored under both` : ''}`)}</p>`
    : '';
  return `<section class="tasks"><h2>Tasks that changed</h2>\n${body}\n${counts}</section>`;
}

function samplesSection(samples: readonly ReportTaskSamples[]): string {
  const tasks = samples.map((t) => {
    const prompt = t.prompt === undefined ? '' : `<h3>Prompt</h3><pre>${escapeHtml(t.prompt)}</pre>`;
    const rows = t.samples.map((s) => [
      `<td>${escapeHtml(s.checkpoint)}</td>`,
      cell(s.reward),
      `<td><pre>${escapeHtml(s.text)}</pre>${s.error ? `<p class="down">${escapeHtml(s.error)}</p>` : ''}</td>`,
    ]);
    return `<details class="task-samples"><summary>${escapeHtml(t.task)} (${t.samples.length} sample${t.samples.length === 1 ? '' : 's'})</summary>\n${prompt}\n${table(['checkpoint', 'reward', 'reply'], rows)}</details>`;
  });
  return `<section class="samples"><h2>Samples of the tasks that changed</h2>\n${tasks.join('\n')}</section>`;
}

/** The whole page, as a string. */
export function renderHtml(data: ReportData): string {
  const body = [
    `<h1>${escapeHtml(data.title)}</h1>`,
    ...data.summary.map((line) => `<p class="summary">${escapeHtml(line)}</p>`),
    ...data.charts.map(
      (c, i) =>
        `<figure class="chart-figure">${svgChart(c, i)}<figcaption>${escapeHtml(c.title)}</figcaption></figure>`,
    ),
    ...data.tables.map(tableSection),
    ...(data.tasks ? [tasksSection(data.tasks)] : []),
    ...(data.samples && data.samples.length > 0 ? [samplesSection(data.samples)] : []),
    '<footer><p>Made by aip. This page is self-contained: it loads nothing.</p></footer>',
  ];
  return [
    '<!DOCTYPE html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    `<meta http-equiv="Content-Security-Policy" content="${CONTENT_SECURITY_POLICY}">`,
    '<meta name="referrer" content="no-referrer">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    '<link rel="icon" href="data:,">',
    `<title>${escapeHtml(data.title)}</title>`,
    `<style>${STYLE}</style>`,
    '</head>',
    '<body>',
    '<main>',
    ...body,
    '</main>',
    `<script>${SCRIPT}</script>`,
    '</body>',
    '</html>',
    '',
  ].join('\n');
}
