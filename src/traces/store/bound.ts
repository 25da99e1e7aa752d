// The store's bound: after a fold, at most MAX_SPANS spans and MAX_DETAIL_BYTES of attributes, events
// and resources (what makes a span large) are kept. Past either, whole traces go, those that started
// first going first, until both hold again: a trace is never kept in part by the bound.

import type { SqliteDriver } from '../../lib/sqlite/sqlite-driver.js';

/** At most this many spans: a few hundred bytes to a few KB each, so tens to hundreds of MB at most. */
export const MAX_SPANS = 200_000;
/** At most this many bytes of attributes, events and resources (their OTLP/JSON text). */
export const MAX_DETAIL_BYTES = 256 * 1024 * 1024;

export interface Bounds {
  maxSpans: number;
  maxBytes: number;
}

export const DEFAULT_BOUNDS: Bounds = { maxSpans: MAX_SPANS, maxBytes: MAX_DETAIL_BYTES };

/** Removes the oldest traces until the store is within `bounds`; how many traces went. */
export function enforceBounds(db: SqliteDriver, bounds: Bounds): number {
  const totals = db.prepare('SELECT count(*) AS n, coalesce(sum(bytes), 0) AS b FROM spans').get();
  let spans = Number(totals?.n ?? 0);
  let bytes = Number(totals?.b ?? 0);
  if (spans <= bounds.maxSpans && bytes <= bounds.maxBytes) return 0;
  const traces = db
    .prepare(
      'SELECT trace_id, count(*) AS n, sum(bytes) AS b FROM spans GROUP BY trace_id ORDER BY min(start_ms), min(seq)',
    )
    .all();
  const remove = db.prepare('DELETE FROM spans WHERE trace_id = ?');
  let removed = 0;
  db.transaction(() => {
    for (const trace of traces) {
      if (spans <= bounds.maxSpans && bytes <= bounds.maxBytes) break;
      remove.run(trace.trace_id as string);
      spans -= Number(trace.n);
      bytes -= Number(trace.b);
      removed++;
    }
  });
  db.exec('PRAGMA incremental_vacuum');
  return removed;
}
