// What an OTLP/HTTP exporter sends the gateway, made a decoded ExportTraceServiceRequest: protobuf
// (application/x-protobuf) or OTLP/JSON (application/json), plain, gzip or deflate, as the OTLP/HTTP
// specification lets an exporter send it. Everything is untrusted: the body's size (capped before
// and after inflating, so a bomb is refused, not unpacked), its bytes (a decoding error is the
// sender's 400, never the gateway's crash) and its JSON (checked by the same code as `traces send`).

import { gunzipSync, inflateRawSync, inflateSync } from 'node:zlib';
import { decodeRequest, type PbExportRequest, type PbResourceSpans } from '../otlp/otlp.js';
import {
  type JsonProblem,
  resourceFromJson,
  scopeFromJson,
  spanFromJson,
  stringFromJson,
} from '../otlp/otlp-json.js';

/** The most a request may inflate to: as the emulator's ingest. */
export const MAX_INFLATED_BYTES = 64 * 1024 * 1024;

export type BodyFormat = 'protobuf' | 'json';

/** Why a body is refused: the sender's fault (400), or a type the gateway does not take (415). */
export class BodyError extends Error {
  constructor(
    readonly status: 400 | 408 | 413 | 415 | 503,
    message: string,
  ) {
    super(message);
  }
}

/** The body's format from its Content-Type (parameters, such as charset, allowed). */
export function formatOf(contentType: string | undefined): BodyFormat {
  const type = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  if (type === 'application/x-protobuf' || type === 'application/protobuf') return 'protobuf';
  if (type === 'application/json') return 'json';
  throw new BodyError(
    415,
    `Unsupported Media Type ${JSON.stringify(type || '(none)')}: OTLP/HTTP takes application/x-protobuf or application/json`,
  );
}

export function inflate(body: Buffer, encoding: string | undefined): Buffer {
  const coding = (encoding ?? 'identity').trim().toLowerCase();
  // Output chunks of about the size the body will inflate to (protobuf spans compress some 7 times):
  // at zlib's default of 16 KB, joining the chunks was a third of inflating (bench/gateway.mjs).
  const chunkSize = Math.min(Math.max(body.byteLength * 8, 64 * 1024), 1024 * 1024);
  const options = { maxOutputLength: MAX_INFLATED_BYTES, chunkSize };
  try {
    if (coding === 'identity' || coding === '') return body;
    if (coding === 'gzip' || coding === 'x-gzip') return gunzipSync(body, options);
    if (coding === 'deflate') {
      try {
        return inflateSync(body, options);
      } catch {
        return inflateRawSync(body, options); // deflate as some clients send it: without the zlib header
      }
    }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE')
      throw new BodyError(413, `the request inflates past ${MAX_INFLATED_BYTES / 1024 / 1024} MB`);
    throw new BodyError(400, `the body is not valid ${coding}: ${(error as Error).message}`);
  }
  throw new BodyError(415, `Unsupported Content-Encoding ${JSON.stringify(coding)}: gzip, deflate or none`);
}

function where(problem: JsonProblem): string {
  return problem.path.map((p) => (typeof p === 'number' ? `[${p}]` : `.${p}`)).join('') || '(the body)';
}

/** OTLP/JSON, checked and made encodable in place; the first problem refuses it whole. */
function fromJson(text: string): PbExportRequest {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new BodyError(400, `the body is not JSON: ${(error as Error).message}`);
  }
  const problems: JsonProblem[] = [];
  const list = (parsed as { resourceSpans?: unknown } | null)?.resourceSpans;
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    throw new BodyError(400, 'the body is not an ExportTraceServiceRequest (a JSON object)');
  if (list !== undefined && list !== null && !Array.isArray(list))
    throw new BodyError(400, 'resourceSpans: expected an array');
  const resourceSpans: PbResourceSpans[] = [];
  for (const [r, item] of ((list as unknown[] | undefined) ?? []).entries()) {
    const at = ['resourceSpans', r];
    const rs = (item ?? {}) as Record<string, unknown>;
    const scopes = rs.scopeSpans;
    if (scopes !== undefined && scopes !== null && !Array.isArray(scopes))
      problems.push({ path: [...at, 'scopeSpans'], message: 'expected an array' });
    const scopeSpans = ((Array.isArray(scopes) ? scopes : []) as Array<Record<string, unknown>>).map(
      (ss, s) => {
        const path = [...at, 'scopeSpans', s];
        const spans = Array.isArray(ss?.spans) ? (ss.spans as unknown[]) : [];
        return {
          scope: scopeFromJson(ss?.scope, problems, [...path, 'scope']),
          spans: spans.flatMap((span, i) => spanFromJson(span, problems, [...path, 'spans', i]) ?? []),
          schemaUrl: stringFromJson(ss?.schemaUrl, problems, [...path, 'schemaUrl']),
        };
      },
    );
    resourceSpans.push({
      resource: resourceFromJson(rs.resource, problems, [...at, 'resource']),
      scopeSpans,
      schemaUrl: stringFromJson(rs.schemaUrl, problems, [...at, 'schemaUrl']),
    });
    if (problems.length > 0) break;
  }
  const first = problems[0];
  if (first) throw new BodyError(400, `${where(first)}: ${first.message}`);
  return { resourceSpans };
}

/** The request a body holds; BodyError when it holds none. */
export function decodeBody(bytes: Buffer, format: BodyFormat): PbExportRequest {
  if (format === 'json') return fromJson(bytes.toString('utf8'));
  try {
    const request = decodeRequest(bytes);
    request.resourceSpans ??= [];
    return request;
  } catch (error) {
    throw new BodyError(
      400,
      `the body is not an OTLP protobuf ExportTraceServiceRequest: ${(error as Error).message}`,
    );
  }
}

export function spanCount(request: PbExportRequest): number {
  let n = 0;
  for (const rs of request.resourceSpans) for (const ss of rs.scopeSpans ?? []) n += ss.spans?.length ?? 0;
  return n;
}
