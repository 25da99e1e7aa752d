// What `aip traces send` leaves on GitHub Actions once it has sent: the step outputs spans-accepted
// and spans-rejected, and a summary of the counts, the platform's messages about rejected spans (a few,
// each once) and the batch that failed for good, if one did. The file's name and the platform's words
// are outside text: cut and escaped (ci/summary-table.ts).

import type { GitHubActions } from '../../ci/github.js';
import { markdownTable } from '../../ci/markdown.js';
import { markdownCell } from '../../ci/summary-table.js';
import { thousands } from '../../output/plural.js';
import type { ReadResult } from '../read/read-input.js';
import type { SendSummary } from './send.js';

const MESSAGES_SHOWN = 10;
const count = thousands;
const batches = (n: number) => `${count(n)} batch${n === 1 ? '' : 'es'}`;

function heading(summary: SendSummary): string {
  if (summary.interrupted) return 'Traces: stopped while sending';
  if (summary.failure) return `Traces: batch ${summary.failure.batch + 1} of ${summary.batches} failed`;
  if (summary.rejected > 0)
    return `Traces: ${count(summary.rejected)} span${summary.rejected === 1 ? '' : 's'} rejected`;
  return `Traces: ${count(summary.accepted)} span${summary.accepted === 1 ? '' : 's'} sent`;
}

function markdown(input: ReadResult, summary: SendSummary): string {
  const format = `${input.format === 'json' ? 'OTLP/JSON' : 'OTLP protobuf'}${input.gzipped ? ', gzipped' : ''}`;
  const rows: Array<[string, string]> = [
    ['File', `${markdownCell(input.name, 400)} (${format})`],
    ['Spans', `${count(summary.spans)} in ${batches(summary.batches)}`],
    ['Sent', `${count(summary.spansSent)} in ${batches(summary.batchesSent)}`],
    ['Accepted', count(summary.accepted)],
    ['Rejected', count(summary.rejected)],
  ];
  if (summary.retried > 0) rows.push(['Retried', `${batches(summary.retried)} needed retries`]);
  const parts = [
    `### ${heading(summary)}\n`,
    markdownTable(
      ['', ''],
      rows.map(([k, v]) => [`**${k}**`, v]),
    ),
  ];
  if (summary.failure) {
    const { error } = summary.failure;
    const why = error instanceof Error ? error.message : String(error);
    parts.push(`Batch ${summary.failure.batch + 1} failed: ${markdownCell(why, 400)}\n`);
  }
  if (summary.messages.length > 0) {
    parts.push(
      '#### What the platform said of rejected spans\n',
      ...summary.messages.slice(0, MESSAGES_SHOWN).map((m) => `- ${markdownCell(m, 400)}`),
      '',
    );
    const left = summary.messages.length - MESSAGES_SHOWN;
    if (left > 0) parts.push(`… and ${left} more messages\n`);
  }
  return parts.join('\n');
}

/** The step outputs and the step summary of a send (a later step reads what the platform took). */
export function reportSend(gha: GitHubActions, input: ReadResult, summary: SendSummary): void {
  gha.setOutputs({ 'spans-accepted': summary.accepted, 'spans-rejected': summary.rejected });
  gha.appendSummary(markdown(input, summary));
}
