// How checkpoints look in tables.

import type { Checkpoint } from '../../api/types.js';
import { UsageError } from '../../errors/errors.js';
import type { IO } from '../../output/io.js';
import { formatNumber } from '../../output/numbers.js';
import { type TableWriter, tableWriter } from '../../output/table.js';

/** "reward=0.53 loss=0.21": sorted keys, numbers as formatNumber writes them. */
export function metricsText(metrics: Record<string, number>): string {
  return Object.keys(metrics)
    .sort()
    .map((k) => `${k}=${formatNumber(metrics[k]!)}`)
    .join(' ');
}

export function printCheckpoints(io: IO, checkpoints: readonly Checkpoint[]): void {
  const table = checkpointTable(io);
  table.add(checkpoints);
  table.end();
}

/** The table of checkpoints, written as pages of them come (--all); with --quiet, their ids. */
export function checkpointTable(io: IO): TableWriter<Checkpoint> {
  if (io.quiet) {
    return {
      add: (checkpoints) => {
        for (const c of checkpoints) io.out(c.id);
      },
      end: () => {},
    };
  }
  return tableWriter<Checkpoint>(
    io,
    [
      { header: 'step', value: (c) => c.step },
      { header: 'id', value: (c) => c.id },
      // Piped: the metrics as one JSON object, which a script can parse.
      {
        header: 'metrics',
        value: (c) => (io.isStdoutTTY ? metricsText(c.metrics) : JSON.stringify(c.metrics)),
      },
    ],
    { empty: 'No checkpoints' },
  );
}

/** The usage error for a metric no checkpoint has, naming the metrics there are. */
export function unknownMetric(checkpoints: readonly Checkpoint[], metric: string, where: string): UsageError {
  const seen = [...new Set(checkpoints.flatMap((c) => Object.keys(c.metrics)))].sort();
  return new UsageError(
    `no checkpoint ${where}has the metric "${metric}"${seen.length ? `; metrics: ${seen.join(', ')}` : ''}`,
  );
}
