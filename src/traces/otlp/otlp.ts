// The OTLP trace messages (opentelemetry/proto trace/v1, collector/trace/v1) as protobufjs takes and
// gives them, and their protobuf codec. The codec is the OpenTelemetry project's own: the static
// protobufjs module generated from opentelemetry-proto that @opentelemetry/otlp-transformer shipped up
// to 0.216 (later releases replaced it with a writer that only serialises SDK spans, and decodes
// nothing). The types below are ours, written from the .proto files; the package declares none.

import generatedRoot from '@opentelemetry/otlp-transformer/build/esm/generated/root.js';
import Long from 'long';
import protobuf from 'protobufjs/minimal.js';
import { halves, readDecimalString, setSafeInteger } from './decimal64.js';

// 64-bit fields (times in ns, int attributes) stay exact only with long.js; protobufjs finds it by a
// dynamic require that a bundle cannot follow, so it is handed over here.
protobuf.util.Long = Long;
protobuf.configure();

/** A 64-bit integer as two 32-bit halves: what protobufjs writes (a Long, or a plain object). */
export interface Int64 {
  low: number;
  high: number;
  unsigned?: boolean;
}

export interface PbAnyValue {
  stringValue?: string;
  boolValue?: boolean;
  intValue?: Int64;
  doubleValue?: number;
  arrayValue?: { values: PbAnyValue[] };
  kvlistValue?: { values: PbKeyValue[] };
  bytesValue?: Uint8Array;
}

export interface PbKeyValue {
  key: string;
  value?: PbAnyValue;
}

export interface PbEntityRef {
  schemaUrl?: string;
  type?: string;
  idKeys?: string[];
  descriptionKeys?: string[];
}

export interface PbResource {
  attributes?: PbKeyValue[];
  droppedAttributesCount?: number;
  entityRefs?: PbEntityRef[];
}

export interface PbScope {
  name?: string;
  version?: string;
  attributes?: PbKeyValue[];
  droppedAttributesCount?: number;
}

export interface PbEvent {
  timeUnixNano?: Int64;
  name?: string;
  attributes?: PbKeyValue[];
  droppedAttributesCount?: number;
}

export interface PbLink {
  traceId?: Uint8Array;
  spanId?: Uint8Array;
  traceState?: string;
  attributes?: PbKeyValue[];
  droppedAttributesCount?: number;
  flags?: number;
}

export interface PbStatus {
  message?: string;
  code?: number;
}

export interface PbSpan {
  traceId?: Uint8Array;
  spanId?: Uint8Array;
  traceState?: string;
  parentSpanId?: Uint8Array;
  flags?: number;
  name?: string;
  kind?: number;
  startTimeUnixNano?: Int64;
  endTimeUnixNano?: Int64;
  attributes?: PbKeyValue[];
  droppedAttributesCount?: number;
  events?: PbEvent[];
  droppedEventsCount?: number;
  links?: PbLink[];
  droppedLinksCount?: number;
  status?: PbStatus;
}

export interface PbScopeSpans {
  scope?: PbScope;
  spans: PbSpan[];
  schemaUrl?: string;
}

export interface PbResourceSpans {
  resource?: PbResource;
  scopeSpans: PbScopeSpans[];
  schemaUrl?: string;
}

export interface PbExportRequest {
  resourceSpans: PbResourceSpans[];
}

interface Codec<T> {
  encode(message: T): { finish(): Uint8Array };
  decode(bytes: Uint8Array): T;
}

// The module is typed as a bare protobufjs Root (its .d.ts is a stub); the namespaces are there.
// biome-ignore lint/suspicious/noExplicitAny: untyped generated code, wrapped by the Codec types
const v1 = (generatedRoot as any).opentelemetry.proto;

export const ExportTraceServiceRequest: Codec<PbExportRequest> =
  v1.collector.trace.v1.ExportTraceServiceRequest;
export const ResourceSpansCodec: Codec<PbResourceSpans> = v1.trace.v1.ResourceSpans;
export const SpanCodec: Codec<PbSpan> = v1.trace.v1.Span;
export const ResourceCodec: Codec<PbResource> = v1.resource.v1.Resource;
export const ScopeCodec: Codec<PbScope> = v1.common.v1.InstrumentationScope;

/** protobufjs's wire reader, for walking a request without decoding every span. */
export const WireReader = protobuf.Reader;

export function encodeRequest(request: PbExportRequest): Uint8Array {
  return ExportTraceServiceRequest.encode(request).finish();
}

export function decodeRequest(bytes: Uint8Array): PbExportRequest {
  return ExportTraceServiceRequest.decode(bytes);
}

export const SPAN_KINDS = ['UNSPECIFIED', 'INTERNAL', 'SERVER', 'CLIENT', 'PRODUCER', 'CONSUMER'] as const;
export const STATUS_CODES = ['UNSET', 'OK', 'ERROR'] as const;

/**
 * A safe integer, a decimal string or a bigint as 64-bit halves (two's complement for negatives).
 * This runs for every time and integer attribute of every span: numbers and decimal strings are
 * split with plain arithmetic (decimal64.ts), without BigInt.
 */
export function int64(value: string | number | bigint): Int64 {
  if (typeof value === 'number' && Number.isSafeInteger(value)) {
    setSafeInteger(value);
    return { low: halves.low, high: halves.high };
  }
  // A decimal string in range: negatives as int64, others up to 2^64-1 (fixed64).
  if (typeof value === 'string' && readDecimalString(value, value.startsWith('-')))
    return { low: halves.low, high: halves.high };
  const big = BigInt.asUintN(64, BigInt(value));
  return { low: Number(big & 0xffffffffn), high: Number(big >> 32n) };
}

/** 64-bit halves (a Long from the decoder, or our own) as a decimal string. */
export function int64String(value: Int64 | number, signed: boolean): string {
  if (typeof value === 'number') return String(value);
  const big = (BigInt(value.high >>> 0) << 32n) | BigInt(value.low >>> 0);
  return String(signed ? BigInt.asIntN(64, big) : big);
}
