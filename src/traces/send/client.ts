// The trace-ingest endpoint (api-contract.md §4): POST {trace_url}/agents/otel/v1/traces with an
// OTLP protobuf ExportTraceServiceRequest, gzipped. An export is safe to repeat (the platform keys
// spans by their ids), so a batch is retried like a GET on 408, 429, 5xx and dropped connections.

import { promisify } from 'node:util';
import { gzip as gzipCallback } from 'node:zlib';
import type { HttpClient } from '../../api/http.js';
import type { Context } from '../../context.js';
import { assertKeyMayBeSentTo } from '../../output/secrets.js';
import { type Project, parseProject } from '../otlp/routing.js';
import { GZIP } from './gzip-options.js';

const gzip = promisify(gzipCallback);

export const TRACES_PATH = '/agents/otel/v1/traces';

export interface ExportResult {
  accepted: number;
  rejected: number;
  errorMessage: string;
  attempts: number;
}

function count(value: unknown): number | undefined {
  if (typeof value === 'number' && Number.isInteger(value) && value >= 0) return value;
  if (typeof value === 'string' && /^\d+$/.test(value)) return Number(value);
  return undefined;
}

/**
 * What the answer says was accepted: the GenAI endpoint's {accepted_spans, rejected_spans,
 * error_message}, OTLP's {partial_success: {rejected_spans, error_message}}, or (an empty or
 * protobuf body) everything.
 */
export function readExportAnswer(data: unknown, spans: number): Omit<ExportResult, 'attempts'> {
  if (typeof data !== 'object' || data === null) return { accepted: spans, rejected: 0, errorMessage: '' };
  const body = data as Record<string, unknown>;
  const partial = (body.partial_success ?? body.partialSuccess) as Record<string, unknown> | null | undefined;
  const rejected =
    count(body.rejected_spans) ?? count(partial?.rejected_spans ?? partial?.rejectedSpans) ?? 0;
  const accepted = count(body.accepted_spans) ?? Math.max(0, spans - rejected);
  const message = body.error_message ?? partial?.error_message ?? partial?.errorMessage;
  return { accepted, rejected, errorMessage: typeof message === 'string' ? message : '' };
}

export class TraceClient {
  constructor(
    private readonly http: HttpClient,
    /** "team/project" for the project_id header (resources may route themselves instead). */
    private readonly projectId: string | undefined,
  ) {}

  /** Sends one encoded request (gzipped here, off the main thread, unless it is already). */
  async export(
    protobuf: Uint8Array,
    spans: number,
    options: { gzipped?: boolean; signal?: AbortSignal; retries?: number } = {},
  ): Promise<ExportResult> {
    const { signal, retries } = options;
    const bytes = options.gzipped
      ? Buffer.from(protobuf.buffer, protobuf.byteOffset, protobuf.byteLength)
      : await gzip(protobuf, GZIP);
    const response = await this.http.request<unknown>({
      method: 'POST',
      path: TRACES_PATH,
      raw: { bytes, headers: { 'content-type': 'application/x-protobuf', 'content-encoding': 'gzip' } },
      headers: this.projectId ? { project_id: this.projectId } : undefined,
      idempotent: true,
      kind: 'trace',
      signal,
      retries,
    });
    return { ...readExportAnswer(response.data, spans), attempts: response.attempts };
  }
}

export function configuredProject(ctx: Context): Project | undefined {
  return parseProject(ctx.settings.get('project'));
}

/**
 * The ingest client; a key bound for plain http off this machine is refused now, before any work. That
 * covers a proxy too: only a host off this machine goes through one (api/proxy.ts), and the transport
 * checks each request again with its proxy.
 */
export function traceClient(ctx: Context, options: { onRetry?: (notice: string) => void } = {}): TraceClient {
  const project = ctx.settings.get('project');
  assertKeyMayBeSentTo(ctx.serviceUrl('trace'));
  return new TraceClient(ctx.http('trace', { auth: 'required', ...options }), project || undefined);
}
