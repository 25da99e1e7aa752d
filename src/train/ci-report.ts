// What `aip train rl` leaves on GitHub Actions when the run ends: done, or stopped by a failure (a job
// failed, stalled or timed out, every trajectory failed, …); not on Ctrl-C, which a resume carries on,
// as a wait reports nothing then either. Step outputs: the run's last job, its model, the newest
// checkpoint its jobs made (jobs/job-checkpoint.ts: never one from before the run), the last
// iteration's mean reward, and the run directory (to upload, or to resume). A summary: a row per
// iteration (the last ones of a long run) and the mean reward over the iterations as a chart.

import { costCell, tokensOf } from '../budget/start.js';
import { lineChart } from '../ci/chart.js';
import type { GitHubActions } from '../ci/github.js';
import { markdownCodeBlock, markdownTable } from '../ci/markdown.js';
import { cappedTable, markdownCell } from '../ci/summary-table.js';
import { checkpointArtifact } from '../jobs/ci-report.js';
import type { IterationRecord, RunDir } from './run-dir.js';
import { stateOf } from './summary.js';

export interface RunEnd {
  /** Why the run stopped (its error's message); undefined when every iteration is done. */
  failure?: string;
  /** The command that carries the run on. */
  resume: string;
}

const lastOf = <T>(iterations: readonly IterationRecord[], pick: (i: IterationRecord) => T | undefined) =>
  iterations
    .map(pick)
    .filter((v): v is T => v !== undefined)
    .at(-1);

/** The newest checkpoint a job of the run made, as an artifact path. */
function runCheckpoint(run: RunDir): string | undefined {
  const step = lastOf(run.state.iterations, (i) =>
    i.job_state === 'succeeded' ? i.new_checkpoint_step : undefined,
  );
  return step === undefined ? undefined : checkpointArtifact(run.state.model.name, step);
}

const meanOf = (i: IterationRecord) =>
  typeof i.rollouts?.mean_reward === 'number' ? i.rollouts.mean_reward : undefined;

function iterationTable(iterations: readonly IterationRecord[]): string {
  return cappedTable(
    [
      'iteration',
      'step sampled',
      'mean reward',
      'trajectories',
      'failed',
      'job',
      'state',
      'checkpoint made',
      'tokens',
      'cost',
    ],
    iterations.map((i) => [
      String(i.iteration),
      String(i.checkpoint_step),
      meanOf(i)?.toFixed(3) ?? '',
      String(i.rollouts?.trajectories ?? ''),
      String(i.rollouts?.failed ?? ''),
      markdownCell(i.job_id ?? ''),
      stateOf(i),
      i.new_checkpoint_step === undefined ? '' : `step ${i.new_checkpoint_step}`,
      String(tokensOf(i.usage) ?? ''),
      costCell(i.usage),
    ]),
    {
      keep: 'last',
      more: (n) => `The first ${n} iterations are not shown: run.json in the run directory has every one.`,
    },
  );
}

function summary(run: RunDir, end: RunEnd, checkpoint: string | undefined): string {
  const { state } = run;
  const done = state.iterations.filter((i) => i.job_state === 'succeeded').length;
  const at = state.iterations.at(-1)?.iteration ?? 1;
  const parts = [
    end.failure === undefined
      ? `### RL training: ${done} of ${state.steps} iterations done\n`
      : `### RL training stopped at iteration ${at} of ${state.steps}\n\n${markdownCell(end.failure, 400)}\n`,
    markdownTable(
      ['', ''],
      [
        ['**Model**', `${markdownCell(state.model.name)} (${markdownCell(state.model.id)})`],
        ['**Run directory**', markdownCell(run.dir, 400)],
        ['**Checkpoint**', checkpoint ? markdownCell(checkpoint, 400) : 'none made by this run'],
      ],
    ),
    iterationTable(state.iterations),
  ];
  const chart = lineChart({
    title: 'mean reward over the iterations',
    xLabel: 'iteration',
    yLabel: 'mean reward',
    points: state.iterations.flatMap((i) => {
      const y = meanOf(i);
      return y === undefined ? [] : [{ x: i.iteration, y }];
    }),
  });
  if (chart) parts.push(chart);
  if (end.failure !== undefined) parts.push('#### Resume\n', markdownCodeBlock(end.resume, 'sh'));
  return parts.join('\n');
}

/** The step outputs and the step summary of a run that ended or stopped on a failure. */
export function reportRun(gha: GitHubActions, run: RunDir, end: RunEnd): void {
  const { iterations } = run.state;
  const checkpoint = runCheckpoint(run);
  // Empty rather than left out: no value of an earlier command of the step may stand for this run's.
  gha.setOutputs({
    'job-id': lastOf(iterations, (i) => i.job_id) ?? '',
    'model-id': run.state.model.id,
    checkpoint: checkpoint ?? '',
    'mean-reward': lastOf(iterations, meanOf) ?? '',
    'run-dir': run.dir,
  });
  gha.appendSummary(summary(run, end, checkpoint));
}
