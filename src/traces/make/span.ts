// The spans made here (aip traces exec / span, aip chat --trace): ids, W3C trace context
// (TRACEPARENT, as otel-cli and the OpenTelemetry environment conventions use it), times, attributes
// from the command line, the GenAI names and values they share, and the request that carries them.

import { randomBytes } from 'node:crypto';
import { UsageError } from '../../errors/errors.js';
import { int64, type PbAnyValue, type PbExportRequest, type PbKeyValue, type PbSpan } from '../otlp/otlp.js';
import { type Project, withRouting } from '../otlp/routing.js';

export const SpanKind = { internal: 1, server: 2, client: 3, producer: 4, consumer: 5 } as const;
export const StatusCode = { unset: 0, ok: 1, error: 2 } as const;

export interface TraceContext {
  traceId: string;
  /** The parent span (absent for a root). */
  spanId?: string;
  flags: number;
}

function nonZeroHex(bytes: number): string {
  for (;;) {
    const id = randomBytes(bytes).toString('hex');
    if (/[^0]/.test(id)) return id;
  }
}

export const newTraceId = () => nonZeroHex(16);
export const newSpanId = () => nonZeroHex(8);

const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

/** A W3C traceparent header value ("00-<trace>-<span>-<flags>"), or undefined if it is not one. */
export function parseTraceparent(value: string | undefined): TraceContext | undefined {
  const m = value ? TRACEPARENT.exec(value.trim().toLowerCase()) : null;
  if (!m || m[1] === 'ff' || /^0+$/.test(m[2]!) || /^0+$/.test(m[3]!)) return undefined;
  return { traceId: m[2]!, spanId: m[3]!, flags: Number.parseInt(m[4]!, 16) };
}

export function formatTraceparent(traceId: string, spanId: string, flags = 1): string {
  return `00-${traceId}-${spanId}-${flags.toString(16).padStart(2, '0')}`;
}

/** Now, in nanoseconds since the epoch: the process's monotonic clock, so that end never precedes start. */
export function nowNanos(): bigint {
  const ms = performance.timeOrigin + performance.now();
  return BigInt(Math.floor(ms)) * 1_000_000n + BigInt(Math.round((ms % 1) * 1e6));
}

/**
 * A time from the command line: "now", Unix seconds (with a fraction), or an RFC 3339 time, with "T"
 * or a space between date and time and "." or "," before the fraction (as `date --rfc-3339=ns` and
 * `date -Ins` print them); nanoseconds are kept, and a date that does not exist is refused.
 */
export function parseTime(value: string, flag: string, now: bigint = nowNanos()): bigint {
  const text = value.trim();
  if (text === 'now') return now;
  const seconds = /^(\d{1,12})(?:\.(\d{1,9}))?$/.exec(text);
  if (seconds) return BigInt(seconds[1]!) * 1_000_000_000n + BigInt((seconds[2] ?? '').padEnd(9, '0'));
  const m =
    /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(?:[.,](\d{1,9}))?(Z|z|[+-]\d{2}:\d{2})$/.exec(text);
  if (m) {
    const [, y, mo, d, h, mi, s, fraction, zone] = m;
    const ms = Date.parse(`${y}-${mo}-${d}T${h}:${mi}:${s}${zone!.toUpperCase()}`);
    // Date.parse rolls 2026-02-30 over to March: the calendar date must read back the same.
    const real = new Date(Date.UTC(Number(y), Number(mo) - 1, Number(d)));
    const exists =
      real.getUTCFullYear() === Number(y) &&
      real.getUTCMonth() === Number(mo) - 1 &&
      real.getUTCDate() === Number(d);
    if (!Number.isNaN(ms) && exists && Number(h) < 24 && Number(mi) < 60 && Number(s) < 60) {
      return BigInt(ms) * 1_000_000n + BigInt((fraction ?? '').padEnd(9, '0'));
    }
  }
  throw new UsageError(
    `${flag} ${value}: expected "now", Unix seconds (1700000000.25) or an RFC 3339 time (2026-11-21T09:30:00Z)`,
  );
}

/**
 * "key=value" as an attribute. As otel-cli does, a value that reads as a whole number, a decimal
 * number or true/false is sent as one; anything else (anything quoted, or with a leading zero) is a
 * string.
 */
export function parseAttribute(text: string, flag = '--attr'): PbKeyValue {
  const eq = text.indexOf('=');
  if (eq <= 0) throw new UsageError(`${flag} ${text}: expected key=value`);
  const key = text.slice(0, eq);
  const raw = text.slice(eq + 1);
  let value: PbAnyValue;
  // A leading zero (a ZIP code, an id) keeps the text: 02134 is not the number 2134.
  if (/^-?(0|[1-9]\d{0,17})$/.test(raw)) value = { intValue: int64(raw) };
  else if (/^-?(0|[1-9]\d*)\.\d+(e[+-]?\d+)?$/i.test(raw)) value = { doubleValue: Number(raw) };
  else if (raw === 'true' || raw === 'false') value = { boolValue: raw === 'true' };
  else if (raw.length >= 2 && raw.startsWith('"') && raw.endsWith('"'))
    value = { stringValue: raw.slice(1, -1) };
  else value = { stringValue: raw };
  return { key, value };
}

export const stringAttr = (key: string, value: string): PbKeyValue => ({
  key,
  value: { stringValue: value },
});
export const intAttr = (key: string, value: number): PbKeyValue => ({
  key,
  value: { intValue: int64(value) },
});
export const stringsAttr = (key: string, values: readonly string[]): PbKeyValue => ({
  key,
  value: { arrayValue: { values: values.map((v) => ({ stringValue: v })) } },
});

/** The operations the Agents view renders (api-contract.md §4.3, the GenAI semantic conventions). */
export type GenAiOperation = 'chat' | 'invoke_agent' | 'execute_tool';

/**
 * Who serves the models aip chats with: the platform behind both APIs (W&B Inference and W&B
 * Training, api-contract.md). Sent as gen_ai.provider.name and also as gen_ai.system, which the
 * conventions deprecated for it in 1.37 but which readers written earlier still look for.
 */
export const GEN_AI_PROVIDER = 'wandb';

export const providerAttrs = (): PbKeyValue[] => [
  stringAttr('gen_ai.provider.name', GEN_AI_PROVIDER),
  stringAttr('gen_ai.system', GEN_AI_PROVIDER),
];

/** A GenAI span's name as the conventions form it: the operation, then what it acts on if known. */
export function genAiSpanName(operation: string, target: string | undefined): string {
  return target ? `${operation} ${target}` : operation;
}

export interface SpanSpec {
  name: string;
  kind: number;
  context: TraceContext;
  spanId: string;
  start: bigint;
  end: bigint;
  attributes: PbKeyValue[];
  status?: { code: number; message?: string };
  events?: Array<{ name: string; time: bigint; attributes?: PbKeyValue[] }>;
}

/** The trace this span belongs to: the incoming context's, or a new one. */
export function traceFor(incoming: TraceContext | undefined): TraceContext {
  return incoming ?? { traceId: newTraceId(), flags: 1 };
}

export function buildSpan(spec: SpanSpec): PbSpan {
  const span: PbSpan = {
    traceId: Buffer.from(spec.context.traceId, 'hex'),
    spanId: Buffer.from(spec.spanId, 'hex'),
    name: spec.name,
    kind: spec.kind,
    startTimeUnixNano: int64(spec.start),
    endTimeUnixNano: int64(spec.end),
    attributes: spec.attributes,
    flags: spec.context.flags & 0xff,
  };
  if (spec.context.spanId) span.parentSpanId = Buffer.from(spec.context.spanId, 'hex');
  if (spec.status && spec.status.code !== StatusCode.unset) {
    span.status = {
      code: spec.status.code,
      ...(spec.status.message ? { message: spec.status.message } : {}),
    };
  }
  if (spec.events?.length) {
    span.events = spec.events.map((e) => ({
      name: e.name,
      timeUnixNano: int64(e.time),
      ...(e.attributes ? { attributes: e.attributes } : {}),
    }));
  }
  return span;
}

/** The resource of spans made here: service.name, OTEL_RESOURCE_ATTRIBUTES, and the project. */
export function localResource(
  env: Record<string, string | undefined>,
  service: string | undefined,
  project: Project | undefined,
): PbKeyValue[] {
  const attributes: PbKeyValue[] = [];
  for (const pair of (env.OTEL_RESOURCE_ATTRIBUTES ?? '').split(',')) {
    const eq = pair.indexOf('=');
    if (eq > 0)
      attributes.push(
        stringAttr(
          decodeURIComponent(pair.slice(0, eq).trim()),
          decodeURIComponent(pair.slice(eq + 1).trim()),
        ),
      );
  }
  const name =
    service ??
    env.OTEL_SERVICE_NAME ??
    attributes.find((a) => a.key === 'service.name')?.value?.stringValue ??
    'aip';
  const others = attributes.filter((a) => a.key !== 'service.name');
  return withRouting({ attributes: [stringAttr('service.name', name), ...others] }, project).attributes ?? [];
}

/** The request that carries spans made here: one resource, aip's scope. */
export function spansRequest(resource: PbKeyValue[], spans: PbSpan[], scopeVersion: string): PbExportRequest {
  return {
    resourceSpans: [
      {
        resource: { attributes: resource },
        scopeSpans: [{ scope: { name: 'aip', version: scopeVersion }, spans }],
      },
    ],
  };
}
