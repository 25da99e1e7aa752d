// Where `aip traces list`, `show` and `tail` read spans: the tee's local store (traces/store/, the
// default), or the emulator behind the configured trace URL (--emulator), which keeps what trace
// ingest accepted and lists it at GET /_emulator/spans on the same origin, behind the emulator's key.
// Both give the view's spans (model.ts); `show` accepts a unique prefix of a trace id from either.

import { HttpClient } from '../../api/http.js';
import type { Context } from '../../context.js';
import { ApiError, CliError, NotFoundError, UsageError } from '../../errors/errors.js';
import { isObject } from '../../lib/json.js';
import { lastSeq, spansAfter, spansOfTrace, spansSince, traceIdsWithPrefix } from '../store/query.js';
import { withTraceStore } from '../store/store.js';
import { groupTraces, type SpanView } from './model.js';
import { spanFromOtlpJson } from './otlp-json-span.js';

export interface TraceSource {
  /** For messages: "the local store (…)" or "the emulator at …". */
  readonly name: string;
  /** The spans of every trace with a span started at or after `sinceMs`. */
  spans(sinceMs?: number): Promise<SpanView[]>;
  /** The trace ids that start with `prefix`, at most two (enough to know it is ambiguous). */
  idsWithPrefix(prefix: string): Promise<string[]>;
  /** Every span of one trace, with attributes, events, links and resource. */
  trace(traceId: string): Promise<SpanView[]>;
  /** Every span of each trace, by id (the local store opened once for all of them). */
  traces(traceIds: readonly string[]): Promise<Map<string, SpanView[]>>;
  /** Where new spans begin now, and the spans after a place, for tail. */
  end(): Promise<number>;
  after(place: number): Promise<{ spans: SpanView[]; place: number }>;
}

/** The tee's store (nothing kept yet: no spans). */
export function localSource(ctx: Context): TraceSource {
  const env = ctx.env;
  const read = async <T>(work: Parameters<typeof withTraceStore<T>>[1], none: T) =>
    (await withTraceStore(env, work)) ?? none;
  return {
    name: 'the local store',
    spans: (sinceMs) => read((db) => spansSince(db, sinceMs), []),
    idsWithPrefix: (prefix) => read((db) => traceIdsWithPrefix(db, prefix), []),
    trace: (id) => read((db) => spansOfTrace(db, id), []),
    traces: (ids) => read((db) => new Map(ids.map((id) => [id, spansOfTrace(db, id)])), new Map()),
    end: () => read((db) => lastSeq(db), 0),
    after: (place) =>
      read(
        (db) => {
          const { spans, seq } = spansAfter(db, place);
          return { spans, place: seq };
        },
        { spans: [], place },
      ),
  };
}

/** Spans fetched from an emulator at most: the newest this many. */
export const MAX_EMULATOR_SPANS = 200_000;
const PAGE = 5000;

interface SpansPage {
  total: number;
  data: unknown[];
}

/** The emulator behind the trace URL: its origin, and the key its control routes take (the user's). */
export function emulatorSource(ctx: Context): TraceSource {
  const origin = new URL(ctx.serviceUrl('trace')).origin;
  // The control routes take the key as a bearer token (as the Training API does, not as trace ingest's
  // Basic credentials); messages name the emulator rather than an API.
  const options = ctx.http('training', { auth: 'required', baseUrl: origin }).options;
  const http = new HttpClient({ ...options, service: `emulator at ${origin}` });
  const name = `the emulator at ${origin}`;
  const page = async (query: Record<string, string | number>): Promise<SpansPage> => {
    let data: unknown;
    try {
      data = (await http.request<unknown>({ method: 'GET', path: '/_emulator/spans', query, kind: 'page' }))
        .data;
    } catch (error) {
      if (error instanceof ApiError && error.status === 404)
        throw new CliError(
          `${origin} has no /_emulator/spans: --emulator reads an aip emulator's spans only`,
        );
      throw error;
    }
    if (!isObject(data) || !Array.isArray(data.data) || typeof data.total !== 'number')
      throw new CliError(`${origin}/_emulator/spans did not answer with spans: is it an aip emulator?`);
    return { total: data.total, data: data.data };
  };
  const views = (records: unknown[]) =>
    records.flatMap((r) => {
      if (!isObject(r)) return [];
      const view = spanFromOtlpJson(r.span, r.resource, typeof r.project === 'string' ? r.project : null);
      return view ? [view] : [];
    });
  const from = async (offset: number, query: Record<string, string> = {}) => {
    const spans: SpanView[] = [];
    let at = offset;
    for (;;) {
      const got = await page({ ...query, offset: at, limit: PAGE });
      spans.push(...views(got.data));
      at += got.data.length;
      // The server says how many there are: at most MAX_EMULATOR_SPANS are read whatever it says.
      if (got.data.length === 0 || at >= got.total || at - offset >= MAX_EMULATOR_SPANS)
        return { spans, total: got.total, at };
    }
  };
  const all = async () => {
    const { total } = await page({ offset: 0, limit: 0 });
    return (await from(Math.max(0, total - MAX_EMULATOR_SPANS))).spans;
  };
  return {
    name,
    async spans(sinceMs) {
      const spans = await all();
      if (sinceMs === undefined) return spans;
      const recent = new Set(spans.filter((s) => Date.parse(s.start) >= sinceMs).map((s) => s.trace_id));
      return spans.filter((s) => recent.has(s.trace_id));
    },
    async idsWithPrefix(prefix) {
      if (prefix.length === 32)
        return (await page({ trace_id: prefix, offset: 0, limit: 1 })).total > 0 ? [prefix] : [];
      const ids = groupTraces(await all()).map((g) => g.summary.trace_id);
      return [...new Set(ids.filter((id) => id.startsWith(prefix)))].sort().slice(0, 2);
    },
    trace: async (id) => (await from(0, { trace_id: id })).spans,
    async traces(ids) {
      const out = new Map<string, SpanView[]>();
      for (const id of ids) out.set(id, (await from(0, { trace_id: id })).spans);
      return out;
    },
    end: async () => (await page({ offset: 0, limit: 0 })).total,
    async after(place) {
      const { total } = await page({ offset: 0, limit: 0 });
      // Fewer than before: the emulator was reset, or let its oldest go; begin again from its end.
      if (total < place) return { spans: [], place: total };
      const got = await from(place);
      return { spans: got.spans, place: got.at };
    },
  };
}

/** The full trace id a `show` argument names: a trace id or a unique prefix of one. */
export async function resolveTraceId(source: TraceSource, given: string): Promise<string> {
  const prefix = given.trim().toLowerCase();
  if (!/^[0-9a-f]{1,32}$/.test(prefix))
    throw new UsageError(`${JSON.stringify(given)} is not a trace id: expected up to 32 hex digits`);
  const ids = await source.idsWithPrefix(prefix);
  if (ids.length === 0) throw new NotFoundError(`no trace in ${source.name} starts with ${prefix}`);
  if (ids.length > 1)
    throw new UsageError(
      `${prefix} is ambiguous in ${source.name} (${ids.join(', ')}, …): give more of the trace id`,
    );
  return ids[0]!;
}

/** The source a read command's --emulator flag chooses. */
export function traceSource(ctx: Context, emulator: boolean | undefined): TraceSource {
  return emulator ? emulatorSource(ctx) : localSource(ctx);
}
