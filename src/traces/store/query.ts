// What `aip traces list`, `show` and `tail` read of traces.db, as the view's spans (view/model.ts).

import type { SqliteDriver, SqlRow } from '../../lib/sqlite/sqlite-driver.js';
import { isoOfNanos, kindName, nanosBetween, type SpanView, statusName } from '../view/model.js';

const LIGHT = `seq, trace_id, span_id, parent_id, name, kind, start_ns, end_ns, status_code, status_message,
  project, service, request_model, response_model, input_tokens, output_tokens, operation, tool`;

const str = (v: unknown) => (v === null || v === undefined ? null : String(v));
const num = (v: unknown) => (v === null || v === undefined ? null : Number(v));

function parseJson(text: unknown): Record<string, unknown> {
  try {
    const value = JSON.parse(String(text));
    return typeof value === 'object' && value !== null ? value : {};
  } catch {
    return {};
  }
}

function spanOf(row: SqlRow, detail: boolean): SpanView {
  const start = String(row.start_ns);
  const end = String(row.end_ns);
  const span: SpanView = {
    trace_id: String(row.trace_id),
    span_id: String(row.span_id),
    parent_id: str(row.parent_id),
    name: String(row.name),
    kind: kindName(Number(row.kind)),
    start: isoOfNanos(start),
    start_ns: start,
    end_ns: end,
    duration_ms: nanosBetween(start, end),
    status: statusName(Number(row.status_code)),
    status_message: str(row.status_message),
    project: str(row.project),
    service: str(row.service),
    model: str(row.response_model) ?? str(row.request_model),
    input_tokens: num(row.input_tokens),
    output_tokens: num(row.output_tokens),
    operation: str(row.operation),
    tool: str(row.tool),
  };
  if (detail) {
    const parsed = parseJson(row.detail);
    span.attributes = Array.isArray(parsed.attributes) ? parsed.attributes : [];
    span.events = Array.isArray(parsed.events) ? parsed.events : [];
    span.links = Array.isArray(parsed.links) ? parsed.links : [];
    span.resource = parseJson(row.resource);
  }
  return span;
}

/** The spans of every trace that has a span started at or after `sinceMs` (all, without it). */
export function spansSince(db: SqliteDriver, sinceMs: number | undefined): SpanView[] {
  const rows =
    sinceMs === undefined
      ? db.prepare(`SELECT ${LIGHT} FROM spans`).all()
      : db
          .prepare(
            `SELECT ${LIGHT} FROM spans WHERE trace_id IN (SELECT trace_id FROM spans WHERE start_ms >= ?)`,
          )
          .all(sinceMs);
  return rows.map((row) => spanOf(row, false));
}

/** The trace ids that start with `prefix` (lower-case hex), at most `limit` of them. */
export function traceIdsWithPrefix(db: SqliteDriver, prefix: string, limit = 2): string[] {
  return db
    .prepare(
      'SELECT DISTINCT trace_id FROM spans WHERE trace_id >= ? AND trace_id < ? ORDER BY trace_id LIMIT ?',
    )
    .all(prefix, `${prefix}g`, limit)
    .map((row) => String(row.trace_id));
}

/** Every span of a trace, with its attributes, events, links and resource. */
export function spansOfTrace(db: SqliteDriver, traceId: string): SpanView[] {
  return db
    .prepare(`SELECT ${LIGHT}, detail, resource FROM spans WHERE trace_id = ? ORDER BY seq`)
    .all(traceId)
    .map((row) => spanOf(row, true));
}

/** The last span folded so far (its seq), 0 for none: where `tail` starts. */
export function lastSeq(db: SqliteDriver): number {
  return Number(db.prepare('SELECT coalesce(max(seq), 0) AS seq FROM spans').get()?.seq ?? 0);
}

/** The spans folded after `seq`, in the order they were folded, with the seq reached. */
export function spansAfter(db: SqliteDriver, seq: number): { spans: SpanView[]; seq: number } {
  const rows = db.prepare(`SELECT ${LIGHT} FROM spans WHERE seq > ? ORDER BY seq`).all(seq);
  return { spans: rows.map((row) => spanOf(row, false)), seq: rows.length ? Number(rows.at(-1)!.seq) : seq };
}

/** Every span of the traces named (for tail: a trace's summary once its root has come). */
export function spansOfTraces(db: SqliteDriver, traceIds: readonly string[]): SpanView[] {
  const statement = db.prepare(`SELECT ${LIGHT} FROM spans WHERE trace_id = ?`);
  return traceIds.flatMap((id) => statement.all(id).map((row) => spanOf(row, false)));
}
