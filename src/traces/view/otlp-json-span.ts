// A span in OTLP/JSON (as the emulator's /_emulator/spans gives its records) as the view's span
// (model.ts), read field by field: whatever is not of the expected type is left out, and attribute
// keys are compared, never used to index an object.

import { isObject } from '../../lib/json.js';
import { isoOfNanos, kindName, nanosBetween, type SpanView, statusName } from './model.js';

type Json = Record<string, unknown>;

const asString = (v: unknown) => (typeof v === 'string' ? v : null);
const asList = (v: unknown) => (Array.isArray(v) ? v : []);

function attributeValue(list: unknown[], key: string): Json | undefined {
  for (const kv of list) if (isObject(kv) && kv.key === key && isObject(kv.value)) return kv.value;
  return undefined;
}

function textOf(list: unknown[], key: string): string | null {
  return asString(attributeValue(list, key)?.stringValue);
}

function wholeOf(list: unknown[], key: string): number | null {
  const v = attributeValue(list, key);
  if (!v) return null;
  const raw = v.intValue ?? v.doubleValue ?? v.stringValue;
  const n =
    typeof raw === 'number' ? raw : typeof raw === 'string' && /^\d{1,15}$/.test(raw) ? Number(raw) : NaN;
  return Number.isFinite(n) && n >= 0 ? Math.trunc(n) : null;
}

const nanos = (v: unknown) => (typeof v === 'string' && /^\d{1,20}$/.test(v) ? v : '0');

/** The view of one span of an emulator record; undefined when it has no trace or span id. */
export function spanFromOtlpJson(
  span: unknown,
  resource: unknown,
  project: string | null,
): SpanView | undefined {
  if (!isObject(span)) return undefined;
  const traceId = asString(span.traceId);
  const spanId = asString(span.spanId);
  if (!traceId || !spanId) return undefined;
  const attributes = asList(span.attributes);
  const resourceAttributes = isObject(resource) ? asList(resource.attributes) : [];
  const status = isObject(span.status) ? span.status : {};
  const start = nanos(span.startTimeUnixNano);
  const end = nanos(span.endTimeUnixNano);
  return {
    trace_id: traceId.toLowerCase(),
    span_id: spanId.toLowerCase(),
    parent_id: asString(span.parentSpanId)?.toLowerCase() || null,
    name: asString(span.name) ?? '',
    kind: kindName(typeof span.kind === 'number' ? span.kind : 0),
    start: isoOfNanos(start),
    start_ns: start,
    end_ns: end,
    duration_ms: nanosBetween(start, end),
    status: statusName(typeof status.code === 'number' ? status.code : 0),
    status_message: asString(status.message) || null,
    project,
    service: textOf(resourceAttributes, 'service.name'),
    model: textOf(attributes, 'gen_ai.response.model') ?? textOf(attributes, 'gen_ai.request.model'),
    input_tokens:
      wholeOf(attributes, 'gen_ai.usage.input_tokens') ?? wholeOf(attributes, 'gen_ai.usage.prompt_tokens'),
    output_tokens:
      wholeOf(attributes, 'gen_ai.usage.output_tokens') ??
      wholeOf(attributes, 'gen_ai.usage.completion_tokens'),
    operation: textOf(attributes, 'gen_ai.operation.name'),
    tool: textOf(attributes, 'gen_ai.tool.name'),
    attributes,
    events: asList(span.events),
    links: asList(span.links),
    resource: isObject(resource) ? resource : {},
  };
}
