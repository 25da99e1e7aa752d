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

/**
 * A time as JSON carries it: ISO 8601 in UTC. Takes what aip keeps (ISO text) and what a server may
 * send (another date text, epoch seconds or milliseconds); anything else is null, not passed on as if
 * it were a time.
 */
export function isoTime(value: unknown): string | null {
  let date: Date;
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) return null;
    // Seconds until the year 33658; a larger number is already milliseconds.
    date = new Date(Math.abs(value) < 1e12 ? value * 1000 : value);
  } else if (typeof value === 'string' && value.trim() !== '') date = new Date(value);
  else return null;
  return Number.isNaN(date.getTime()) ? null : date.toISOString();
}

const DURATION_UNITS: ReadonlyArray<[string, number]> = [
  ['h', 3_600_000],
  ['m', 60_000],
  ['s', 1000],
  ['ms', 1],
];

/**
 * A duration of the command line in ms: seconds as a bare number (`90`, `0.5`), or numbers with
 * units, Go's way (`90s`, `15m`, `1h`, `1h30m`, `200ms`). undefined when it is not one, or not > 0.
 */
export function parseDuration(text: string): number | undefined {
  const value = text.trim();
  let ms: number;
  if (/^\d+(\.\d+)?$/.test(value)) ms = Number(value) * 1000;
  else {
    const parts = [...value.matchAll(/(\d+(?:\.\d+)?)(ms|h|m|s)/g)];
    // Every character must belong to a part: "1h30" or "15 m" is not a duration.
    if (parts.length === 0 || parts.map((p) => p[0]).join('') !== value) return undefined;
    ms = parts.reduce((sum, p) => sum + Number(p[1]) * DURATION_UNITS.find(([u]) => u === p[2])![1], 0);
  }
  return Number.isFinite(ms) && ms > 0 ? ms : undefined;
}

/** "1h2m3s", "15m", "0.25s" (below a minute, to the millisecond): as parseDuration reads it back. */
export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms) || ms <= 0) return '0s';
  if (ms < 60_000) return `${Math.round(ms) / 1000}s`;
  let rest = Math.round(ms / 1000) * 1000;
  let text = '';
  for (const [unit, size] of DURATION_UNITS.slice(0, 3)) {
    const n = Math.floor(rest / size);
    rest -= n * size;
    if (n > 0) text += `${n}${unit}`;
  }
  return text;
}
