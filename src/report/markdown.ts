// The Markdown report: for a pull-request comment or a GitHub step summary. Tables, a Mermaid chart
// per series (GitHub renders ```mermaid; xychart-beta has no legend, so one chart a series, the first
// few) with a text sparkline per series beside the table for any renderer, and the samples of changed
// tasks in collapsed <details>. Text from outside is escaped as text (ci/markdown.ts: `|`, HTML,
// emphasis, links), and a sample's text goes in a fenced block whose fence no backtick run inside can
// close.
//
// GitHub refuses a comment longer than 65,536 characters: the report is cut to fit, the samples first
// (whole tasks, with a note saying how many were left out), then the rows of the longest tables.

import { lineChart } from '../ci/chart.js';
import { markdownCodeBlock, markdownTable, markdownText } from '../ci/markdown.js';
import { sparkline } from '../output/plot.js';
import { thousands } from '../output/plural.js';
import {
  type ReportCell,
  type ReportData,
  type ReportTable,
  type ReportTaskSamples,
  type ReportTasks,
  reportNumber,
  signedNumber,
} from './model.js';

/** GitHub's limit on a comment's body (characters). */
export const GITHUB_COMMENT_LIMIT = 65_536;
/** Mermaid charts drawn at most (one per series); the sparklines cover every series. */
const MAX_MERMAID_CHARTS = 4;
/** A sample's text is cut past this many characters. */
const MAX_SAMPLE_CHARS = 4000;
/** Room kept for the notes that say what was cut. */
const NOTE_ROOM = 600;

/** A cell: a number as written (our own text), a string escaped as text. */
const cellText = (value: ReportCell) =>
  typeof value === 'string' ? markdownText(value) : reportNumber(value);

function chartsPart(data: ReportData): string {
  const out: string[] = [];
  let drawn = 0;
  for (const chart of data.charts) {
    const trend = chart.series.map(
      (s) =>
        `| ${markdownText(s.label)} | ${s.points.length} | ${sparkline(
          s.points.map((p) => p.y),
          40,
        )} |`,
    );
    out.push(
      `### ${markdownText(chart.title)}\n`,
      '| series | points | trend |',
      '| --- | --- | --- |',
      ...trend,
      '',
    );
    for (const series of chart.series) {
      if (drawn >= MAX_MERMAID_CHARTS) break;
      const block = lineChart({
        title: `${chart.title}: ${series.label}`,
        xLabel: chart.x_label,
        yLabel: chart.y_label,
        points: series.points,
      });
      if (block) {
        out.push(block);
        drawn++;
      }
    }
  }
  return out.join('\n');
}

/** A table with as many rows as fit in `budget` characters, and a note for those left out. */
function fittedTable(caption: string, header: string[], rows: string[][], budget: number): string {
  const title = `### ${markdownText(caption)}\n\n`;
  let text = title + markdownTable(header, rows);
  if (text.length <= budget) return text;
  let kept = rows.length;
  while (kept > 0 && text.length > budget) {
    kept = Math.floor(kept * 0.8);
    text = title + markdownTable(header, rows.slice(0, kept));
  }
  return `${text}\n_${rows.length - kept} of ${rows.length} rows left out to fit GitHub's comment limit._\n`;
}

function tableRows(t: ReportTable): string[][] {
  return t.rows.map((r) => r.map(cellText));
}

function tasksRows(tasks: ReportTasks): string[][] {
  return tasks.diffs.map((t) => [markdownText(t.id), ...t.means.map(cellText), signedNumber(t.change)]);
}

function countsLine(tasks: ReportTasks): string {
  const c = tasks.counts;
  if (!c) return '';
  const unscored = c.unscored ? `, ${c.unscored} not scored under both` : '';
  return `${markdownText(`${tasks.checkpoints[0]} → ${tasks.checkpoints.at(-1)}`)}: ${c.improved} improved, ${c.worse} worse, ${c.unchanged} unchanged${unscored}\n`;
}

function sampleBlock(task: ReportTaskSamples): string {
  const lines = [
    '<details>',
    `<summary>${markdownText(task.task)} (${task.samples.length} sample${task.samples.length === 1 ? '' : 's'})</summary>`,
    '',
  ];
  if (task.prompt !== undefined) lines.push('Prompt:', '', markdownCodeBlock(cut(task.prompt)));
  for (const s of task.samples) {
    const error = s.error ? ` (${markdownText(s.error)})` : '';
    lines.push(`**${markdownText(s.checkpoint)}**, reward ${reportNumber(s.reward)}${error}:`, '');
    lines.push(markdownCodeBlock(cut(s.text)));
  }
  lines.push('</details>', '');
  return lines.join('\n');
}

function cut(text: string): string {
  if (text.length <= MAX_SAMPLE_CHARS) return text;
  return `${text.slice(0, MAX_SAMPLE_CHARS)}\n… (${text.length - MAX_SAMPLE_CHARS} more characters)`;
}

function samplesPart(samples: readonly ReportTaskSamples[], budget: number): string {
  const head = '### Samples of the tasks that changed\n\n';
  let text = head;
  let kept = 0;
  for (const task of samples) {
    const block = sampleBlock(task);
    if (text.length + block.length > budget) break;
    text += block;
    kept++;
  }
  if (kept === samples.length) return text;
  if (kept === 0) text = head;
  return `${text}\n_The samples of ${samples.length - kept} of ${samples.length} tasks are left out: GitHub's comment limit is ${thousands(GITHUB_COMMENT_LIMIT)} characters (the HTML report has them all)._\n`;
}

/** The report as Markdown, at most `limit` characters (GitHub's comment limit by default). */
export function renderMarkdown(data: ReportData, limit = GITHUB_COMMENT_LIMIT): string {
  const parts = [
    `## ${markdownText(data.title)}\n`,
    ...data.summary.map((line) => `${markdownText(line)}\n`),
    chartsPart(data),
  ];
  const used = () => parts.join('\n').length;
  for (const t of data.tables) {
    const budget = limit - used() - NOTE_ROOM;
    if (t.rows.length === 0)
      parts.push(`### ${markdownText(t.caption)}\n\n${markdownText(t.empty ?? 'Nothing to show.')}\n`);
    else parts.push(fittedTable(t.caption, t.columns.map(markdownText), tableRows(t), budget));
  }
  if (data.tasks) {
    const budget = limit - used() - NOTE_ROOM;
    const header = ['task', ...data.tasks.checkpoints, 'change'].map(markdownText);
    const rows = tasksRows(data.tasks);
    parts.push(
      rows.length === 0
        ? '### Tasks that changed\n\nNo task has a different mean reward under these checkpoints.\n'
        : fittedTable('Tasks that changed', header, rows, budget),
      countsLine(data.tasks),
    );
  }
  if (data.samples && data.samples.length > 0)
    parts.push(samplesPart(data.samples, limit - used() - NOTE_ROOM));
  const text = parts.filter((p) => p !== '').join('\n');
  // The notes are within NOTE_ROOM; a cut of last resort keeps the promise whatever the input.
  return text.length <= limit
    ? text
    : `${text.slice(0, limit - 80)}\n\n_(cut to fit GitHub's comment limit)_\n`;
}
