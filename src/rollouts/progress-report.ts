// Progress of a rollout run on stderr: on a terminal, one status line redrawn in place (a bar, groups,
// rollouts a second, mean reward, failures, 429s); elsewhere (CI, pipes) a plain line every few
// seconds and one at the end, so that a log shows the run moving without a line per sample.

import type { IO } from '../output/io.js';
import { bar, progress } from '../output/progress.js';
import type { RolloutTotals } from './run.js';

const PLAIN_EVERY_MS = 5000;

export interface ProgressReport {
  update(totals: RolloutTotals, samples: number): void;
  end(): void;
}

export function describeTotals(totals: RolloutTotals, samples: number, elapsedMs: number): string {
  const mean = totals.trajectories > 0 ? (totals.rewardSum / totals.trajectories).toFixed(3) : '–';
  const rate = elapsedMs > 0 ? (samples / (elapsedMs / 1000)).toFixed(1) : '0';
  const extra = [
    totals.failed > 0 ? `${totals.failed} failed` : '',
    totals.throttled > 0 ? `${totals.throttled}× 429` : '',
  ].filter(Boolean);
  return `${rate} rollouts/s, mean reward ${mean}${extra.length ? `, ${extra.join(', ')}` : ''}`;
}

export function progressReport(io: IO, totalGroups: number, label: string): ProgressReport {
  const started = Date.now();
  const lines = progress(io);
  let lastPlain = started;
  let last = '';
  const text = (totals: RolloutTotals, samples: number) =>
    `${label}: ${totals.groups}/${totalGroups} groups, ${describeTotals(totals, samples, Date.now() - started)}`;
  return {
    update(totals, samples) {
      last = text(totals, samples);
      if (io.spinnersEnabled) lines.status(`${bar(totals.groups, totalGroups)} ${last}`);
      else if (Date.now() - lastPlain >= PLAIN_EVERY_MS) {
        lastPlain = Date.now();
        io.info(last);
      }
    },
    end() {
      lines.done();
    },
  };
}
