// The gateway's answers, in the format the exporter asked in (OTLP/HTTP): an
// ExportTraceServiceResponse on success, with partial_success when some spans were not taken, and a
// google.rpc.Status on failure, protobuf or JSON alike.

import type { ServerResponse } from 'node:http';
import protobuf from 'protobufjs/minimal.js';
import type { BodyFormat } from './decode.js';

const TYPES: Record<BodyFormat, string> = { protobuf: 'application/x-protobuf', json: 'application/json' };

/** google.rpc.Code for an HTTP status, as OTLP/HTTP maps them. */
function rpcCode(status: number): number {
  if (status === 400 || status === 413) return 3; // INVALID_ARGUMENT
  if (status === 503) return 14; // UNAVAILABLE
  if (status === 429) return 8; // RESOURCE_EXHAUSTED
  return 2; // UNKNOWN
}

export function answerSuccess(
  res: ServerResponse,
  format: BodyFormat,
  rejected: number,
  message: string,
): void {
  let body: Uint8Array | string;
  if (format === 'json') {
    body = JSON.stringify(
      rejected > 0 ? { partialSuccess: { rejectedSpans: String(rejected), errorMessage: message } } : {},
    );
  } else if (rejected > 0) {
    // ExportTraceServiceResponse { 1: ExportTracePartialSuccess { 1: int64 rejected_spans, 2: string } }
    const inner = protobuf.Writer.create().uint32(8).int64(rejected).uint32(18).string(message).finish();
    body = protobuf.Writer.create().uint32(10).bytes(inner).finish();
  } else {
    body = new Uint8Array(0);
  }
  res.writeHead(200, { 'content-type': TYPES[format], 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

export function answerFailure(
  res: ServerResponse,
  format: BodyFormat,
  status: number,
  message: string,
  headers: Record<string, string> = {},
): void {
  const code = rpcCode(status);
  const body =
    format === 'json'
      ? JSON.stringify({ code, message })
      : protobuf.Writer.create().uint32(8).int32(code).uint32(18).string(message).finish();
  res.writeHead(status, {
    ...headers,
    'content-type': TYPES[format],
    'content-length': Buffer.byteLength(body),
  });
  res.end(body);
}
