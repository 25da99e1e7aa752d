// Steps as people type them ("3,5,10-20") and as aip prints them ("1-3, 7, 9-10"): for checkpoints
// delete and eval's --steps alike.

import { UsageError } from '../errors/errors.js';

const MAX_STEPS = 100_000;

/** "0,8,16" or "10-20,25": sorted, without repeats. */
export function parseSteps(text: string, flag = '--steps'): number[] {
  const steps = new Set<number>();
  for (const part of text.split(',').map((p) => p.trim())) {
    const range = /^(\d+)\s*-\s*(\d+)$/.exec(part);
    const [from, to] = range ? [Number(range[1]), Number(range[2])] : [Number(part), Number(part)];
    if (!range && !/^\d+$/.test(part))
      throw new UsageError(
        `invalid step "${part}" in ${flag}: give whole numbers or ranges, e.g. 0,8,16 or 0-16`,
      );
    // Past 2^53 a number has no successor (s++ would never end the loop), and no step is that large.
    if (!Number.isSafeInteger(from) || !Number.isSafeInteger(to))
      throw new UsageError(`invalid step "${part}" in ${flag}: larger than any step can be`);
    if (from > to)
      throw new UsageError(`invalid step range "${part}" in ${flag}: the first step is after the last`);
    if (to - from > MAX_STEPS)
      throw new UsageError(`step range "${part}" in ${flag} is longer than ${MAX_STEPS} steps`);
    for (let s = from; s <= to; s++) steps.add(s);
  }
  return [...steps].sort((a, b) => a - b);
}

/** Sorted steps as short text: [1, 2, 3, 7, 9, 10] → "1-3, 7, 9-10". */
export function formatSteps(steps: readonly number[]): string {
  const sorted = [...new Set(steps)].sort((a, b) => a - b);
  const parts: string[] = [];
  for (let i = 0; i < sorted.length; ) {
    let j = i;
    while (j + 1 < sorted.length && sorted[j + 1] === sorted[j]! + 1) j++;
    parts.push(j > i ? `${sorted[i]}-${sorted[j]}` : `${sorted[i]}`);
    i = j + 1;
  }
  return parts.join(', ');
}
