// How checkpoints look in tables.

import type { Checkpoint } from '../../api/types.js';
import type { IO } from '../../output/io.js';
import { printTable } from '../../output/table.js';

function short(value: number): string {
  return Number.isInteger(value) ? String(value) : Number(value.toPrecision(4)).toString();
}

/** "reward=0.53 loss=0.21": sorted keys, four significant digits. */
export function metricsText(metrics: Record<string, number>): string {
  return Object.keys(metrics)
    .sort()
    .map((k) => `${k}=${short(metrics[k]!)}`)
    .join(' ');
}

export function printCheckpoints(io: IO, checkpoints: readonly Checkpoint[]): void {
  if (io.quiet) {
    for (const c of checkpoints) io.out(c.id);
    return;
  }
  printTable(io, checkpoints, [
    { header: 'step', value: (c) => c.step },
    { header: 'id', value: (c) => c.id },
    // Piped: the metrics as one JSON object, which a script can parse.
    {
      header: 'metrics',
      value: (c) => (io.isStdoutTTY ? metricsText(c.metrics) : JSON.stringify(c.metrics)),
    },
  ]);
}
