// OTLP requests for the tee's tests, encoded as the gateway forwards them (encodeRequest): a trace of
// an agent turn (an invoke_agent root, a chat span with a model and tokens, a tool span), or any spans.

import { encodeRequest, int64, type PbKeyValue, type PbSpan } from '../../../src/traces/otlp/otlp.js';

export const str = (key: string, value: string): PbKeyValue => ({ key, value: { stringValue: value } });
export const int = (key: string, value: number): PbKeyValue => ({ key, value: { intValue: int64(value) } });

/** Hex of `n` bytes from a number: distinct ids that read back as they were written. */
export function hexId(n: number, bytes: 16 | 8): string {
  return n.toString(16).padStart(bytes * 2, '0');
}

export interface SpanSpec {
  trace: string;
  span: string;
  parent?: string;
  name: string;
  /** Start, in ms after the trace's epoch, and duration in ms. */
  at?: number;
  ms?: number;
  error?: string;
  attributes?: PbKeyValue[];
}

/** 2026-11-20T10:00:00Z in ns: what `at` counts from. */
export const EPOCH_NS = 1_795_168_800_000_000_000n;

export function span(spec: SpanSpec): PbSpan {
  const start = EPOCH_NS + BigInt(Math.round((spec.at ?? 0) * 1e6));
  const end = start + BigInt(Math.round((spec.ms ?? 1) * 1e6));
  return {
    traceId: Buffer.from(spec.trace, 'hex'),
    spanId: Buffer.from(spec.span, 'hex'),
    parentSpanId: spec.parent ? Buffer.from(spec.parent, 'hex') : undefined,
    name: spec.name,
    kind: 1,
    startTimeUnixNano: int64(start),
    endTimeUnixNano: int64(end),
    attributes: spec.attributes ?? [],
    status: spec.error ? { code: 2, message: spec.error } : undefined,
  };
}

export function request(
  spans: PbSpan[],
  resource: PbKeyValue[] = [str('service.name', 'agent')],
): Uint8Array {
  return encodeRequest({ resourceSpans: [{ resource: { attributes: resource }, scopeSpans: [{ spans }] }] });
}

/** One agent turn as three spans: root (invoke_agent), a chat call, a tool call (failed when asked). */
export function agentTurn(
  n: number,
  options: { at?: number; toolError?: boolean; model?: string } = {},
): PbSpan[] {
  const trace = hexId(n, 16);
  const at = options.at ?? n * 1000;
  const model = options.model ?? 'openai/gpt-oss-20b';
  const root = hexId(n * 16 + 1, 8);
  return [
    span({
      trace,
      span: hexId(n * 16 + 2, 8),
      parent: root,
      name: `chat ${model}`,
      at: at + 10,
      ms: 400,
      attributes: [
        str('gen_ai.operation.name', 'chat'),
        str('gen_ai.request.model', model),
        int('gen_ai.usage.input_tokens', 120),
        int('gen_ai.usage.output_tokens', 30),
      ],
    }),
    span({
      trace,
      span: hexId(n * 16 + 3, 8),
      parent: root,
      name: 'execute_tool search_docs',
      at: at + 420,
      ms: 50,
      error: options.toolError ? 'timed out' : undefined,
      attributes: [str('gen_ai.operation.name', 'execute_tool'), str('gen_ai.tool.name', 'search_docs')],
    }),
    span({
      trace,
      span: root,
      name: 'invoke_agent support',
      at,
      ms: 500,
      attributes: [
        str('gen_ai.operation.name', 'invoke_agent'),
        int('gen_ai.usage.input_tokens', 120),
        int('gen_ai.usage.output_tokens', 30),
      ],
    }),
  ];
}
