// Progress of a rollout run on stderr: on a terminal, one status line redrawn in place (a bar, groups,
// rollouts a second, mean reward, failures, 429s); elsewhere (CI, pipes) a plain line every few
// seconds and one at the end, so that a log shows the run moving without a line per sample.

import type OpenAI from 'openai';
import type { Context } from '../context.js';
import type { IO } from '../output/io.js';
import { bar, progress } from '../output/progress.js';
import type { GroupFile } from './group-file.js';
import { type RolloutEvents, type RolloutPlan, type RolloutTotals, runRollouts } from './run.js';
import type { Task } from './tasks.js';

const PLAIN_EVERY_MS = 5000;

export interface ProgressReport {
  update(totals: RolloutTotals): void;
  end(): void;
}

/** The figures both forms of progress show: mean reward, rollouts a second, and what went wrong. */
function figures(totals: RolloutTotals, elapsedMs: number, digits: number) {
  return {
    mean: totals.trajectories > 0 ? (totals.rewardSum / totals.trajectories).toFixed(digits) : '–',
    rate: elapsedMs > 0 ? (totals.requests / (elapsedMs / 1000)).toFixed(1) : '0',
    trouble: [
      totals.failed > 0 ? `${totals.failed} failed` : '',
      totals.throttled > 0 ? `${totals.throttled}× 429` : '',
    ].filter(Boolean),
  };
}

export function describeTotals(totals: RolloutTotals, elapsedMs: number): string {
  const { mean, rate, trouble } = figures(totals, elapsedMs, 3);
  return `${rate} rollouts/s, mean reward ${mean}${trouble.length ? `, ${trouble.join(', ')}` : ''}`;
}

export function progressReport(io: IO, totalGroups: number, label: string): ProgressReport {
  const started = Date.now();
  const lines = progress(io);
  let lastPlain = started;
  return {
    update(totals) {
      const elapsed = Date.now() - started;
      if (io.spinnersEnabled) {
        // Short, most telling first: the line is cut to the terminal's width from the right.
        const { mean, rate, trouble } = figures(totals, elapsed, 2);
        lines.status(
          `${bar(totals.groups, totalGroups, 10)} ${totals.groups}/${totalGroups} · reward ${mean} · ${rate}/s${trouble.length ? ` · ${trouble.join(' · ')}` : ''}`,
        );
      } else if (Date.now() - lastPlain >= PLAIN_EVERY_MS) {
        lastPlain = Date.now();
        io.info(`${label}: ${totals.groups}/${totalGroups} groups, ${describeTotals(totals, elapsed)}`);
      }
    },
    end() {
      lines.done();
    },
  };
}

/**
 * runRollouts with its progress on stderr, as rollouts, eval and train rl all show it; `onGroup` is
 * told of each group as it completes.
 */
export async function rolloutsWithProgress(
  ctx: Context,
  client: OpenAI,
  plan: RolloutPlan,
  sink: Pick<GroupFile, 'append'> | undefined,
  signal: AbortSignal,
  options: {
    label: string;
    traceExchange: RolloutEvents['traceExchange'];
    onGroup?: (group: Record<string, unknown>, task: Task) => void;
  },
): Promise<RolloutTotals> {
  const report = progressReport(ctx.io, plan.tasks.length, options.label);
  try {
    return await runRollouts(ctx, client, plan, sink, signal, {
      onSample: (_outcome, live) => report.update(live),
      onGroup: (group, task, live) => {
        options.onGroup?.(group, task);
        report.update(live);
      },
      traceExchange: options.traceExchange,
    });
  } finally {
    report.end();
  }
}
