// A point in time as `--since` and `--older-than` take it: an age back from now (7d, 24h, 30m, 2w,
// 1h30m, 90s) or an ISO-8601 date or time (2026-11-01, 2026-11-01T09:00:00Z). As ISO text, which is
// how the history keeps its times, so that it compares as the store compares them.

import { parseDuration } from '../output/time.js';

const DAY_MS = 24 * 3600 * 1000;

/** An age as milliseconds: days and weeks besides the units parseDuration reads. */
export function parseAge(text: string): number | undefined {
  const value = text.trim();
  const long = /^(\d+(?:\.\d+)?)([dw])$/.exec(value);
  if (long) {
    const ms = Number(long[1]) * (long[2] === 'w' ? 7 : 1) * DAY_MS;
    return ms > 0 ? ms : undefined;
  }
  // A bare number would be seconds to parseDuration: too easily meant as days here.
  if (/^\d+(\.\d+)?$/.test(value)) return undefined;
  return parseDuration(value);
}

/** The ISO time `text` names (an age back from `now`, or a date); undefined when it names none. */
export function parseSince(text: string, now = Date.now()): string | undefined {
  const age = parseAge(text);
  if (age !== undefined) return new Date(now - age).toISOString();
  const value = text.trim();
  if (!/^\d{4}-\d{2}-\d{2}([T ][\d:.]+(Z|[+-]\d{2}:?\d{2})?)?$/.test(value)) return undefined;
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString();
}
