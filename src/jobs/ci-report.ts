// What `jobs wait` and `jobs create --wait` leave on GitHub Actions when the wait ends (succeeded,
// failed, stalled, timed out): step outputs a later step can use (job-id, model-id, state, last-step,
// checkpoint) and a Markdown summary (the job, how it ended, its duration and steps, the final metrics,
// reward and loss over the steps as charts, and the command that reproduces the step). Everything the
// server sent is text in it, never markup (ci/markdown.ts). Two GETs give what the wait did not learn:
// the job (its training times) and the model's newest checkpoints, to name the one this job made
// (job-checkpoint.ts: empty when it made none, never an earlier job's); either failing only leaves its
// part out, with a warning: the wait's result and exit code stand.

import type { JobResponse } from '../api/types.js';
import { lineChart } from '../ci/chart.js';
import type { GitHubActions } from '../ci/github.js';
import { markdownCodeBlock, markdownTable, markdownText } from '../ci/markdown.js';
import type { Context } from '../context.js';
import { shellWord } from '../lib/shell-word.js';
import { formatNumber } from '../output/numbers.js';
import { formatDuration, isoTime } from '../output/time.js';
import { jobCheckpoint } from './job-checkpoint.js';
import type { JobAbout, JobProgress } from './shape.js';
import { describeState, type JobState } from './state.js';

/** How the wait ended, as the `state` output says it: the job's end, or why the wait stopped first. */
export type WaitEnd = 'succeeded' | 'failed' | 'stalled' | 'timed-out';

export interface WaitReport {
  id: string;
  about: JobAbout;
  state: JobState;
  progress: JobProgress;
  end: WaitEnd;
  /** The job as the server described it at the end (its training times), when it could be read. */
  server: JobResponse | undefined;
  /** How long this wait ran, in ms: the duration when the server gives no training times. */
  waitedMs: number;
  /** Why the wait stopped, for stalled and timed out (the error's message). */
  reason: string | undefined;
  /** The command line as given (after `aip`), to reproduce the step. */
  argv: readonly string[] | undefined;
}

/** The artifact path of a checkpoint (api-contract.md §2.8): wandb-artifact:///entity/project/name:stepN. */
export function checkpointArtifact(model: string | null, step: number): string | undefined {
  const parts = model?.split('/');
  if (parts?.length !== 3 || parts.some((p) => !p)) return undefined;
  return `wandb-artifact:///${parts.join('/')}:step${step}`;
}

interface MadeCheckpoint {
  artifact: string | undefined;
  /** Why there is no artifact, for the summary. */
  why: string;
}

/**
 * The checkpoint this job made, as an artifact path: undefined, with why, when it made none, or when
 * the model's name is not known here (an artifact path is made of it).
 */
async function madeCheckpoint(ctx: Context, report: WaitReport): Promise<MadeCheckpoint> {
  const { about, progress } = report;
  if (!about.model_id || !checkpointArtifact(about.model, 0))
    return { artifact: undefined, why: "unknown: the model's name is not known here" };
  const made = await jobCheckpoint(ctx, about.model_id, report.id, progress);
  if (made.step !== undefined) return { artifact: checkpointArtifact(about.model, made.step), why: '' };
  if (made.unknown) ctx.io.warn(`the step summary has no checkpoint: ${made.why}`);
  return { artifact: undefined, why: made.why };
}

/** The training's own duration when the server gives its times, else how long the wait ran. */
function duration(report: WaitReport): string {
  const start = isoTime(report.server?.training_start);
  const end = isoTime(report.server?.training_end);
  if (start) {
    const until = end ? Date.parse(end) : Date.now();
    if (until >= Date.parse(start))
      return `${formatDuration(until - Date.parse(start))}${end ? '' : ' so far'}`;
  }
  return `${formatDuration(report.waitedMs)} (this wait)`;
}

const HEADINGS: Record<WaitEnd, string> = {
  succeeded: 'succeeded',
  failed: 'failed',
  stalled: 'stalled',
  'timed-out': 'still running at the --timeout',
};

function summary(report: WaitReport, checkpoint: MadeCheckpoint): string {
  const { about, progress, state } = report;
  const t = markdownText;
  const rows: Array<[string, string]> = [
    ['Job', `${t(report.id)}${about.kind ? ` (${t(about.kind)})` : ''}`],
    [
      'Model',
      about.model && about.model !== about.model_id
        ? `${t(about.model)} (${t(about.model_id ?? '')})`
        : t(about.model_id ?? 'unknown'),
    ],
    ['State', t(report.reason ?? describeState(state))],
    // aip's own text from here on (numbers and durations): nothing to escape, and escaped, "0.5s"
    // would read "0\.5s" in the file.
    ['Duration', duration(report)],
    ['Steps', `${progress.step} of ${progress.num_sequences ?? '?'}`],
    ['Checkpoint', t(checkpoint.artifact ?? checkpoint.why)],
  ];
  const parts = [
    `### Training job ${HEADINGS[report.end]}\n`,
    markdownTable(
      ['', ''],
      rows.map(([k, v]) => [`**${k}**`, v]),
    ),
  ];
  const metrics = Object.entries(progress.latest_metrics ?? {}).sort(([a], [b]) => a.localeCompare(b));
  if (metrics.length > 0) {
    parts.push(
      '#### Final metrics\n',
      markdownTable(
        ['metric', 'value'],
        metrics.map(([k, v]) => [t(k), formatNumber(v)]),
      ),
    );
  }
  for (const [name, values] of [
    ['reward', state.rewards],
    ['loss', state.losses],
  ] as const) {
    const chart = lineChart({
      title: `${name} over the steps`,
      xLabel: 'step',
      yLabel: name,
      points: values.map((y, i) => ({ x: i + 1, y })),
    });
    if (chart) parts.push(chart);
  }
  if (report.argv && report.argv.length > 0) {
    parts.push('#### Reproduce\n', markdownCodeBlock(['aip', ...report.argv].map(shellWord).join(' '), 'sh'));
  }
  return parts.join('\n');
}

/** The step outputs and the step summary of a wait that ended. */
export async function reportWait(ctx: Context, gha: GitHubActions, report: WaitReport): Promise<void> {
  // last-step and checkpoint from the same progress: a job of no step has no checkpoint, and an empty
  // one is written rather than left out, so that no value of an earlier command of the step stands.
  const checkpoint = await madeCheckpoint(ctx, report);
  gha.setOutputs({
    'job-id': report.id,
    'model-id': report.about.model_id ?? undefined,
    state: report.end,
    'last-step': report.progress.step,
    checkpoint: checkpoint.artifact ?? '',
  });
  gha.appendSummary(summary(report, checkpoint));
}
