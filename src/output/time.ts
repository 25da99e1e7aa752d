// Times for people on a terminal ("3 minutes ago"), ISO 8601 for scripts, as gh does.

import type { IO } from './io.js';

const UNITS: Array<[string, number]> = [
  ['year', 365 * 24 * 3600],
  ['month', 30 * 24 * 3600],
  ['day', 24 * 3600],
  ['hour', 3600],
  ['minute', 60],
];

export function relativeTime(date: Date, now: number = Date.now()): string {
  const seconds = Math.round((now - date.getTime()) / 1000);
  if (Math.abs(seconds) < 60) return seconds < 0 ? 'in a moment' : 'just now';
  for (const [unit, size] of UNITS) {
    const n = Math.floor(Math.abs(seconds) / size);
    if (n >= 1)
      return seconds < 0 ? `in ${n} ${unit}${n === 1 ? '' : 's'}` : `${n} ${unit}${n === 1 ? '' : 's'} ago`;
  }
  return 'just now';
}

/** Relative on a terminal, ISO 8601 otherwise; the text as is when it is not a date. */
export function showTime(io: IO, value: string | null | undefined): string {
  if (!value) return '';
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) return value;
  return io.isStdoutTTY ? relativeTime(date) : date.toISOString();
}
