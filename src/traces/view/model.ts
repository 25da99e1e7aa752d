// The read model of `aip traces list`, `show` and `tail`, whichever the source (the tee's store, an
// emulator): a span as they show it, and a trace summed up from its spans. Everything in it came from
// the wire: grouping is by Map, never by a plain object's keys (a trace id of "__proto__" is just a
// trace id), and nothing here is printed without the IO's sanitising.

export type SpanStatus = 'unset' | 'ok' | 'error';

export interface SpanView {
  trace_id: string;
  span_id: string;
  /** null for a root span. */
  parent_id: string | null;
  name: string;
  kind: string;
  /** ISO 8601 (milliseconds); start_ns and end_ns exact, as decimal text. */
  start: string;
  start_ns: string;
  end_ns: string;
  duration_ms: number;
  status: SpanStatus;
  status_message: string | null;
  project: string | null;
  service: string | null;
  /** The response's model, else the request's. */
  model: string | null;
  input_tokens: number | null;
  output_tokens: number | null;
  operation: string | null;
  tool: string | null;
  /** OTLP/JSON, for `show` only. */
  attributes?: unknown[];
  events?: unknown[];
  links?: unknown[];
  resource?: unknown;
}

export interface TraceSummary {
  trace_id: string;
  /** The root span's name (a span without a parent; else the earliest whose parent is missing). */
  root: string;
  start: string;
  duration_ms: number;
  spans: number;
  errors: number;
  input_tokens: number;
  output_tokens: number;
  models: string[];
  services: string[];
  projects: string[];
}

const KINDS = ['unspecified', 'internal', 'server', 'client', 'producer', 'consumer'];

export function kindName(kind: number): string {
  return KINDS[kind] ?? String(kind);
}

export function statusName(code: number): SpanStatus {
  return code === 2 ? 'error' : code === 1 ? 'ok' : 'unset';
}

/** Nanoseconds (decimal text) as an ISO time, to the millisecond; '' when it is not a time. */
export function isoOfNanos(ns: string): string {
  if (!/^\d{1,20}$/.test(ns)) return '';
  const date = new Date(Number(BigInt(ns) / 1_000_000n));
  return Number.isNaN(date.getTime()) ? '' : date.toISOString();
}

/** b - a in ms, from nanosecond text (exact to the microsecond); 0 when negative or not numbers. */
export function nanosBetween(a: string, b: string): number {
  if (!/^\d{1,20}$/.test(a) || !/^\d{1,20}$/.test(b)) return 0;
  const diff = BigInt(b) - BigInt(a);
  return diff > 0n ? Number(diff / 1000n) / 1000 : 0;
}

export function compareNanos(a: string, b: string): number {
  if (a.length !== b.length) return a.length - b.length;
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The root of a trace's spans: parentless first, then those whose parent is missing, then the earliest. */
export function rootOf(spans: readonly SpanView[]): SpanView | undefined {
  const ids = new Set(spans.map((s) => s.span_id));
  const earliest = (list: readonly SpanView[]) =>
    list.reduce<SpanView | undefined>(
      (best, s) => (best === undefined || compareNanos(s.start_ns, best.start_ns) < 0 ? s : best),
      undefined,
    );
  return (
    earliest(spans.filter((s) => s.parent_id === null)) ??
    earliest(spans.filter((s) => !ids.has(s.parent_id!))) ??
    earliest(spans)
  );
}

/**
 * Tokens of a trace: summed over its spans, but an agent span's (gen_ai.operation.name invoke_agent)
 * only when no other span has any: an agent's usage is most often the sum of its model calls', which
 * are spans of the trace too, and counting both would count them twice.
 */
function tokens(spans: readonly SpanView[], key: 'input_tokens' | 'output_tokens'): number {
  let calls = 0;
  let agents = 0;
  let seen = false;
  for (const s of spans) {
    const n = s[key];
    if (n === null) continue;
    if (s.operation === 'invoke_agent') agents += n;
    else {
      calls += n;
      seen = true;
    }
  }
  return seen ? calls : agents;
}

const distinct = (values: Array<string | null>) =>
  [...new Set(values.filter((v): v is string => v !== null && v !== ''))].sort();

export function summarize(spans: readonly SpanView[]): TraceSummary {
  const root = rootOf(spans);
  let first = spans[0]?.start_ns ?? '0';
  let last = spans[0]?.end_ns ?? '0';
  for (const s of spans) {
    if (compareNanos(s.start_ns, first) < 0) first = s.start_ns;
    if (compareNanos(s.end_ns, last) > 0) last = s.end_ns;
  }
  return {
    trace_id: spans[0]?.trace_id ?? '',
    root: root?.name ?? '',
    start: isoOfNanos(first),
    duration_ms: nanosBetween(first, last),
    spans: spans.length,
    errors: spans.filter((s) => s.status === 'error').length,
    input_tokens: tokens(spans, 'input_tokens'),
    output_tokens: tokens(spans, 'output_tokens'),
    models: distinct(spans.map((s) => s.model)),
    services: distinct(spans.map((s) => s.service)),
    projects: distinct(spans.map((s) => s.project)),
  };
}

/** A trace with its spans, as the filters look at it. */
export interface TraceGroup {
  summary: TraceSummary;
  spans: SpanView[];
}

/** Spans grouped by trace (a Map: ids are the wire's), each summed up; newest first. */
export function groupTraces(spans: readonly SpanView[]): TraceGroup[] {
  const byTrace = new Map<string, SpanView[]>();
  for (const span of spans) {
    const list = byTrace.get(span.trace_id);
    if (list) list.push(span);
    else byTrace.set(span.trace_id, [span]);
  }
  const groups = [...byTrace.values()].map((list) => ({ summary: summarize(list), spans: list }));
  return groups.sort(
    (a, b) =>
      b.summary.start.localeCompare(a.summary.start) || a.summary.trace_id.localeCompare(b.summary.trace_id),
  );
}
