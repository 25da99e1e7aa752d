import { UsageError } from '../../errors/errors.js';

const MAX_RANGE = 100_000;

/** "3,5,7" or "10-20,25": sorted, without repeats. */
export function parseSteps(text: string): number[] {
  const steps = new Set<number>();
  for (const part of text.split(',').map((p) => p.trim())) {
    const range = /^(\d+)\s*-\s*(\d+)$/.exec(part);
    if (range) {
      const [from, to] = [Number(range[1]), Number(range[2])];
      if (from > to) throw new UsageError(`invalid step range "${part}": the first step is after the last`);
      if (to - from > MAX_RANGE)
        throw new UsageError(`step range "${part}" is longer than ${MAX_RANGE} steps`);
      for (let s = from; s <= to; s++) steps.add(s);
    } else if (/^\d+$/.test(part)) {
      steps.add(Number(part));
    } else {
      throw new UsageError(`invalid step "${part}" in --steps: give whole numbers or ranges, e.g. 3,5,10-20`);
    }
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
