// The best checkpoint by a metric. Metric names and values come from the server: a name is looked up
// as an own property only (never `constructor` or `__proto__` inherited by every object), and only a
// finite number counts as a value.

import type { Checkpoint } from '../api/types.js';
import { UsageError } from '../errors/errors.js';
import { ownValue } from '../lib/own.js';
import { formatNumber } from '../output/numbers.js';
import type { BestBy } from './names.js';
import { shownName } from './names.js';

export interface BestCheckpoint {
  checkpoint: Checkpoint;
  value: number;
}

/** A checkpoint's value of a metric, when it has one that is a finite number. */
export function metricValue(checkpoint: Checkpoint, metric: string): number | undefined {
  const value = ownValue(checkpoint.metrics ?? undefined, metric);
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

/** The best checkpoint by the metric (of two alike, the earlier step), or undefined when none has it. */
export function bestCheckpoint(checkpoints: readonly Checkpoint[], by: BestBy): BestCheckpoint | undefined {
  let best: BestCheckpoint | undefined;
  for (const checkpoint of [...checkpoints].sort((a, b) => a.step - b.step)) {
    const value = metricValue(checkpoint, by.metric);
    if (value === undefined) continue;
    if (!best || (by.lowest ? value < best.value : value > best.value)) best = { checkpoint, value };
  }
  return best;
}

/** "reward 0.93" */
export const metricText = (metric: string, value: number) => `${shownName(metric)} ${formatNumber(value)}`;

/** The usage error for a metric no checkpoint has, naming the metrics there are. */
export function noCheckpointWith(checkpoints: readonly Checkpoint[], metric: string, of: string): UsageError {
  const seen = new Set<string>();
  for (const c of checkpoints)
    for (const key of Object.keys(c.metrics ?? {})) if (metricValue(c, key) !== undefined) seen.add(key);
  const names = [...seen].sort().map(shownName);
  const shown = names.length > 20 ? [...names.slice(0, 20), `… (${names.length - 20} more)`] : names;
  return new UsageError(
    checkpoints.length === 0
      ? `${of} has no checkpoint yet: nothing to choose the best of by ${shownName(metric)}`
      : `no checkpoint of ${of} has the metric ${shownName(metric)}${shown.length ? `; its metrics: ${shown.join(', ')}` : ''}`,
  );
}
