// The end of a train rl run, on stdout: a row per iteration (the checkpoint it sampled, its mean
// reward, trajectories, failures, its job and how the job ended) and, on a terminal, the mean reward
// drawn over the iterations; --json prints run.json's content (with the run directory) instead.

import type { Spent } from '../budget/budget.js';
import { costCell, describeSpent, tokensOf, totalOf } from '../budget/start.js';
import type { Context } from '../context.js';
import { lineChart } from '../output/plot.js';
import { printTable } from '../output/table.js';
import type { IterationRecord, RunDir } from './run-dir.js';

export function stateOf(iteration: IterationRecord): string {
  if (iteration.job_state) return iteration.job_state;
  if (iteration.job_id) return 'running';
  if (iteration.create_sent_at) return 'create uncertain';
  return iteration.rollouts ? 'sampled' : 'sampling';
}

/** What every iteration's rollouts used, over every part of the run. */
export function runSpent(run: RunDir): Spent {
  return totalOf(run.state.iterations.map((i) => i.usage));
}

export function printRunSummary(ctx: Context, run: RunDir): void {
  const { io } = ctx;
  if (ctx.json) {
    io.json({ run_dir: run.dir, ...run.state, spent: runSpent(run) });
    return;
  }
  const { iterations } = run.state;
  if (io.quiet) {
    for (const iteration of iterations) if (iteration.job_id) io.out(iteration.job_id);
    return;
  }
  printTable(io, iterations, [
    { header: 'iteration', value: (i) => i.iteration },
    { header: 'step sampled', value: (i) => i.checkpoint_step },
    { header: 'mean reward', value: (i) => (i.rollouts?.mean_reward ?? null)?.toFixed(3) ?? '' },
    { header: 'trajectories', value: (i) => i.rollouts?.trajectories },
    { header: 'failed', value: (i) => i.rollouts?.failed },
    { header: 'job', value: (i) => i.job_id },
    { header: 'state', value: stateOf },
    { header: 'tokens', value: (i) => tokensOf(i.usage) },
    { header: 'cost', value: (i) => costCell(i.usage) },
  ]);
  io.info(`Spent ${describeSpent(runSpent(run))} over the run`);
  // A chart is for a person: piped, the rows above are the result, and lines of braille would not be.
  const points = iterations.flatMap((i) =>
    typeof i.rollouts?.mean_reward === 'number' ? [[i.iteration, i.rollouts.mean_reward] as const] : [],
  );
  if (!io.isStdoutTTY || points.length === 0) return;
  io.out();
  io.out(`mean reward over ${points.length} iteration${points.length === 1 ? '' : 's'}`);
  for (const line of lineChart(points, { width: Math.min(io.columns, 100), height: 10 })) io.out(line);
}
