// What the history verbs share: how a time and a count are read from the command line.

import { InvalidArgumentError } from '@commander-js/extra-typings';
import { parseSince } from '../../history/since.js';

/** --since, --older-than: an age (7d, 24h, 30m) or an ISO date, as ISO text. */
export function parseTime(value: string): string {
  const iso = parseSince(value);
  if (iso === undefined)
    throw new InvalidArgumentError('expected an age (7d, 24h, 30m, 2w) or an ISO date (2026-11-01)');
  return iso;
}

export function parseCount(value: string): number {
  if (!/^\d+$/.test(value.trim()) || Number(value) < 1)
    throw new InvalidArgumentError('expected a whole number, at least 1');
  return Number(value);
}

/** How many `aip history` lists without --limit. */
export const DEFAULT_LIMIT = 50;
