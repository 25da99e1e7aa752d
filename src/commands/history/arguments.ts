// What the history verbs share: how a time and a count are read from the command line.

import { InvalidArgumentError } from '@commander-js/extra-typings';

export { parseTime } from '../parsers.js';

export function parseCount(value: string): number {
  if (!/^\d+$/.test(value.trim()) || Number(value) < 1)
    throw new InvalidArgumentError('expected a whole number, at least 1');
  return Number(value);
}

/** How many `aip history` lists without --limit. */
export const DEFAULT_LIMIT = 50;
