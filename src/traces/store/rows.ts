// One OTLP request as the rows traces.db keeps: a row a span, with the columns `list` and `show` read
// (ids, times, status, project, service, the GenAI attributes) and the span's attributes, events and
// links, and its resource, as OTLP/JSON text for `show`. Everything here comes from the wire: keys are
// compared, never used to index an object, and a value of an unexpected type is left out.

import { decodeRequest, int64String, type PbAnyValue, type PbKeyValue, type PbSpan } from '../otlp/otlp.js';
import { resourceToJson, spanToJson } from '../otlp/otlp-json.js';

export interface SpanRow {
  trace_id: string;
  span_id: string;
  parent_id: string | null;
  name: string;
  kind: number;
  /** Nanoseconds since the epoch, as decimal text (64-bit: exact). */
  start_ns: string;
  end_ns: string;
  /** The start in whole milliseconds, for ordering and --since. */
  start_ms: number;
  duration_ns: number;
  status_code: number;
  status_message: string | null;
  project: string | null;
  service: string | null;
  request_model: string | null;
  response_model: string | null;
  input_tokens: number | null;
  output_tokens: number | null;
  operation: string | null;
  tool: string | null;
  /** OTLP/JSON: the span's attributes, events and links ({attributes, events, links}), and its resource. */
  detail: string;
  resource: string;
}

const hex = (bytes: Uint8Array | null | undefined) =>
  bytes?.length ? Buffer.from(bytes).toString('hex') : '';

function text(value: PbAnyValue | null | undefined): string | null {
  if (value == null) return null;
  if (typeof value.stringValue === 'string' && Object.hasOwn(value, 'stringValue')) return value.stringValue;
  return null;
}

function whole(value: PbAnyValue | null | undefined): number | null {
  if (value == null) return null;
  let n: number | undefined;
  if (value.intValue != null && Object.hasOwn(value, 'intValue'))
    n = Number(int64String(value.intValue, true));
  else if (typeof value.doubleValue === 'number' && Object.hasOwn(value, 'doubleValue'))
    n = value.doubleValue;
  else if (typeof value.stringValue === 'string' && /^\d{1,15}$/.test(value.stringValue))
    n = Number(value.stringValue);
  return n !== undefined && Number.isSafeInteger(Math.trunc(n)) && n >= 0 ? Math.trunc(n) : null;
}

/** The value of the first attribute named `key` (a linear look: attribute lists are short). */
function find(list: PbKeyValue[] | null | undefined, key: string): PbAnyValue | undefined {
  if (!list) return undefined;
  for (const kv of list) if (kv.key === key && kv.value != null) return kv.value;
  return undefined;
}

const ns = (t: PbSpan['startTimeUnixNano']) => (t == null ? '0' : int64String(t, false));

function spanRow(
  span: PbSpan,
  resource: { project: string | null; service: string | null; json: string },
): SpanRow {
  const a = span.attributes;
  const start = ns(span.startTimeUnixNano);
  const end = ns(span.endTimeUnixNano);
  const duration = BigInt(end) - BigInt(start);
  const json = spanToJson(span);
  return {
    trace_id: hex(span.traceId),
    span_id: hex(span.spanId),
    parent_id: hex(span.parentSpanId) || null,
    name: span.name ?? '',
    kind: span.kind ?? 0,
    start_ns: start,
    end_ns: end,
    start_ms: Number(BigInt(start) / 1_000_000n),
    duration_ns: duration > 0n ? Number(duration) : 0,
    status_code: span.status?.code ?? 0,
    status_message: span.status?.message || null,
    project: resource.project,
    service: resource.service,
    request_model: text(find(a, 'gen_ai.request.model')),
    response_model: text(find(a, 'gen_ai.response.model')),
    input_tokens: whole(find(a, 'gen_ai.usage.input_tokens') ?? find(a, 'gen_ai.usage.prompt_tokens')),
    output_tokens: whole(find(a, 'gen_ai.usage.output_tokens') ?? find(a, 'gen_ai.usage.completion_tokens')),
    operation: text(find(a, 'gen_ai.operation.name')),
    tool: text(find(a, 'gen_ai.tool.name')),
    detail: JSON.stringify({
      attributes: json.attributes ?? [],
      events: json.events ?? [],
      links: json.links ?? [],
    }),
    resource: resource.json,
  };
}

/**
 * The spans of one request as rows; a span without a trace or span id (not valid OTLP) is left out.
 * Throws when the bytes are not a request (the caller skips the record).
 */
export function rowsOfRequest(bytes: Uint8Array): SpanRow[] {
  const rows: SpanRow[] = [];
  for (const rs of decodeRequest(bytes).resourceSpans ?? []) {
    const attributes = rs.resource?.attributes;
    const entity = text(find(attributes, 'wandb.entity'));
    const project = text(find(attributes, 'wandb.project'));
    const resource = {
      project: entity && project ? `${entity}/${project}` : null,
      service: text(find(attributes, 'service.name')),
      json: JSON.stringify(resourceToJson(rs.resource ?? {}) ?? {}),
    };
    for (const ss of rs.scopeSpans ?? [])
      for (const span of ss.spans ?? []) {
        if (!span.traceId?.length || !span.spanId?.length) continue;
        rows.push(spanRow(span, resource));
      }
  }
  return rows;
}
