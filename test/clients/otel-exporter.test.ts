// The official OpenTelemetry exporter (OTLP/HTTP protobuf) as a client of the emulator's trace ingest,
// in each auth and routing form of api-contract.md §4.2: the spans it exported are compared, span by
// span and field by field, with what the emulator stored. The expected form is written here from the
// SDK's own span objects and the OTLP specification, not with the exporter's transformer, so that a
// field the exporter or the emulator loses or changes shows.

import {
  type Attributes,
  type AttributeValue,
  type Context,
  context,
  type HrTime,
  SpanKind,
  SpanStatusCode,
  trace,
} from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import {
  defaultResource,
  detectResources,
  envDetector,
  type Resource,
  resourceFromAttributes,
} from '@opentelemetry/resources';
import {
  BatchSpanProcessor,
  type ReadableSpan,
  SimpleSpanProcessor,
  type SpanExporter,
  TracerProvider,
} from '@opentelemetry/sdk-trace';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useEmulator } from '../helpers/emulator.js';

type ExportResult = Parameters<Parameters<SpanExporter['export']>[1]>[0];
/** CompressionAlgorithm.GZIP, whose enum lives in a package that is not a direct dependency. */
const GZIP = 'gzip' as NonNullable<
  NonNullable<ConstructorParameters<typeof OTLPTraceExporter>[0]>['compression']
>;
const SUCCESS = 0;
const FAILED = 1;

/** The exporter, with what it was given to export and what came of each export. */
class Recorded implements SpanExporter {
  readonly spans: ReadableSpan[] = [];
  readonly results: ExportResult[] = [];
  constructor(readonly inner: OTLPTraceExporter) {}
  export(spans: ReadableSpan[], done: (result: ExportResult) => void): void {
    this.spans.push(...spans);
    this.inner.export(spans, (result) => {
      this.results.push(result);
      done(result);
    });
  }
  shutdown(): Promise<void> {
    return this.inner.shutdown();
  }
  forceFlush(): Promise<void> {
    return this.inner.forceFlush();
  }
}

const { emu } = useEmulator({ fresh: 'file' });
let ingest: string;
const providers: TracerProvider[] = [];
beforeAll(() => {
  ingest = `${emu.urls.trace}/agents/otel/v1/traces`;
});
// Before the emulator closes (after hooks run last-registered first).
afterAll(async () => {
  for (const provider of providers) await provider.shutdown();
});

const SCOPE = { name: 'weather-agent-client', version: '1.4.2' };
const SCHEMA = 'https://opentelemetry.io/schemas/1.37.0';
const basic = (key: string) => `Basic ${Buffer.from(`api:${key}`).toString('base64')}`;

/** A time `ms` after a fixed start, with nanoseconds that milliseconds would lose. */
function at(ms: number): HrTime {
  const nanos = 123_456_789 + ms * 1_000_000;
  return [1_795_253_400 + Math.floor(nanos / 1e9), nanos % 1e9];
}

/**
 * One user↔agent turn as the Agents view expects it (api-contract.md §4.3): an invoke_agent root, a
 * chat child with usage and model attributes, and an execute_tool child that failed. Between them:
 * attributes of every type, events, a link to another trace, and a status of each code.
 */
function turn(provider: TracerProvider): string {
  const tracer = provider.getTracer(SCOPE.name, SCOPE.version, { schemaUrl: SCHEMA });
  const root = tracer.startSpan('invoke_agent weather-agent', {
    kind: SpanKind.CLIENT,
    startTime: at(0),
    attributes: {
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.provider.name': 'wandb',
      'gen_ai.agent.name': 'weather-agent',
      'gen_ai.conversation.id': 'conv-7f3a',
      'gen_ai.usage.input_tokens': 420,
      'gen_ai.usage.output_tokens': 64,
    },
  });
  const inTurn: Context = trace.setSpan(context.active(), root);
  const chat = tracer.startSpan(
    'chat OpenPipe/Qwen3-14B-Instruct',
    {
      kind: SpanKind.CLIENT,
      startTime: at(5),
      attributes: {
        'gen_ai.operation.name': 'chat',
        'gen_ai.provider.name': 'wandb',
        'gen_ai.request.model': 'OpenPipe/Qwen3-14B-Instruct',
        'gen_ai.response.model': 'OpenPipe/Qwen3-14B-Instruct',
        'gen_ai.usage.input_tokens': 420,
        'gen_ai.usage.output_tokens': 64,
        'gen_ai.request.temperature': 0.7,
        'gen_ai.request.stream': true,
        'gen_ai.response.finish_reasons': ['tool_calls'],
        'gen_ai.request.stop_sequences': ['\n\n', 'END'],
        'server.address': 'api.inference.wandb.ai',
        'server.port': 443,
        'eval.token_ids': [101, 2023, -7],
        'eval.logprobs': [-0.25, -1.5],
        'eval.flags': [true, false, true],
        'eval.big': 2 ** 53 - 1,
      },
    },
    inTurn,
  );
  chat.addEvent('gen_ai.choice', { index: 0, finish_reason: 'tool_calls', 'tool_calls.count': 1 }, at(180));
  chat.setStatus({ code: SpanStatusCode.OK });
  chat.end(at(200));
  const tool = tracer.startSpan(
    'execute_tool get_weather',
    {
      kind: SpanKind.INTERNAL,
      startTime: at(210),
      attributes: {
        'gen_ai.operation.name': 'execute_tool',
        'gen_ai.tool.name': 'get_weather',
        'gen_ai.tool.call.id': 'call_91',
        'http.response.status_code': 504,
      },
      links: [
        {
          context: {
            traceId: '0af7651916cd43dd8448eb211c80319c',
            spanId: 'b7ad6b7169203331',
            traceFlags: 1,
            isRemote: true,
          },
          attributes: { 'link.reason': 'cached forecast', 'link.age_s': 12.5 },
        },
      ],
    },
    inTurn,
  );
  tool.addEvent('retry', { attempt: 2, 'backoff.ms': 250.5 }, at(300));
  tool.addEvent('gave up', undefined, at(400));
  tool.setStatus({ code: SpanStatusCode.ERROR, message: 'weather service timed out' });
  tool.end(at(450));
  root.end(at(500));
  return root.spanContext().traceId;
}

// ---- the expected stored form: OTLP/JSON as the OTLP specification writes it ----

const nanos = ([s, ns]: HrTime) => String(BigInt(s) * 1_000_000_000n + BigInt(ns));

/** An attribute value with its type: the SDK sends a whole JS number as an int, any other as a double. */
function anyValue(v: AttributeValue | null | undefined): unknown {
  if (typeof v === 'string') return { stringValue: v };
  if (typeof v === 'boolean') return { boolValue: v };
  if (typeof v === 'number') return Number.isInteger(v) ? { intValue: String(v) } : { doubleValue: v };
  if (Array.isArray(v)) return { arrayValue: { values: v.map((x) => anyValue(x)) } };
  throw new Error(`no attribute value of this test is ${String(v)}`);
}

function keyValues(attributes: Attributes | undefined): unknown[] | undefined {
  const entries = Object.entries(attributes ?? {});
  return entries.length ? entries.map(([key, value]) => ({ key, value: anyValue(value) })) : undefined;
}

/** SpanFlags: the W3C trace flags, and whether the parent (or linked) context was remote. */
function flags(traceFlags: number, isRemote: boolean | undefined): number {
  return (traceFlags & 0xff) | 0x100 | (isRemote ? 0x200 : 0);
}

function compact(o: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));
}

function expectedSpan(s: ReadableSpan): Record<string, unknown> {
  const ctx = s.spanContext();
  return compact({
    traceId: ctx.traceId,
    spanId: ctx.spanId,
    parentSpanId: s.parentSpanContext?.spanId,
    flags: flags(ctx.traceFlags, s.parentSpanContext?.isRemote),
    name: s.name,
    kind: s.kind + 1, // the API's INTERNAL is 0, OTLP's SPAN_KIND_INTERNAL is 1
    startTimeUnixNano: nanos(s.startTime),
    endTimeUnixNano: nanos(s.endTime),
    attributes: keyValues(s.attributes),
    events: s.events.length
      ? s.events.map((e) =>
          compact({ timeUnixNano: nanos(e.time), name: e.name, attributes: keyValues(e.attributes) }),
        )
      : undefined,
    links: s.links.length
      ? s.links.map((l) =>
          compact({
            traceId: l.context.traceId,
            spanId: l.context.spanId,
            attributes: keyValues(l.attributes),
            flags: flags(l.context.traceFlags, l.context.isRemote),
          }),
        )
      : undefined,
    status:
      s.status.code === SpanStatusCode.UNSET
        ? undefined
        : compact({ code: s.status.code, message: s.status.message }),
  });
}

interface StoredRecord {
  project: string;
  resource: unknown;
  scope: unknown;
  scope_schema_url?: string;
  span: { spanId: string } & Record<string, unknown>;
}

/** The stored records of a trace, without what only the emulator adds (its request id and time). */
async function stored(traceId: string): Promise<StoredRecord[]> {
  const res = await emu.control('GET', `/spans?trace_id=${traceId}`);
  const data = (res.body as { data: Array<StoredRecord & { request_id: string; received_at: string }> }).data;
  return data
    .map(({ request_id: _id, received_at: _at, ...record }) => record)
    .sort((a, b) => (a.span.spanId < b.span.spanId ? -1 : 1));
}

async function summary(): Promise<{ accepted: number; rejected: number }> {
  return (await emu.control('GET', '/spans?limit=0')).body as { accepted: number; rejected: number };
}

/** What the emulator must hold for these exported spans, routed to `project`. */
function expectedRecords(spans: ReadableSpan[], project: string): StoredRecord[] {
  return spans
    .map((s) => ({
      project,
      resource: { attributes: keyValues(s.resource.attributes) },
      scope: compact({ name: s.instrumentationScope.name, version: s.instrumentationScope.version }),
      scope_schema_url: s.instrumentationScope.schemaUrl,
      span: expectedSpan(s) as StoredRecord['span'],
    }))
    .sort((a, b) => (a.span.spanId < b.span.spanId ? -1 : 1));
}

/** One provider sending through one exporter: a batch (one request), or each span as it ends. */
function pipeline(
  exporter: OTLPTraceExporter,
  resource: Resource,
  processing: 'batch' | 'simple',
): { provider: TracerProvider; recorded: Recorded } {
  const recorded = new Recorded(exporter);
  const processor =
    processing === 'batch'
      ? new BatchSpanProcessor({ exporter: recorded, scheduledDelayMillis: 60_000 })
      : new SimpleSpanProcessor({ exporter: recorded });
  const provider = new TracerProvider({ resource, spanProcessors: [processor] });
  providers.push(provider);
  return { provider, recorded };
}

/** Sends one turn and returns its trace id, what was exported, how each export ended, and the flush. */
async function send(
  exporter: OTLPTraceExporter,
  resource: Resource,
  processing: 'batch' | 'simple' = 'batch',
) {
  const { provider, recorded } = pipeline(exporter, resource, processing);
  const traceId = turn(provider);
  // A failed export rejects the provider's flush (the 401 below): kept, not thrown.
  const flushError = await provider.forceFlush().then(
    () => undefined,
    (error: unknown) => error,
  );
  expect(recorded.spans).toHaveLength(3);
  return { traceId, spans: recorded.spans, results: recorded.results, flushError };
}

const routed = (entity: string, project: string) =>
  defaultResource().merge(
    resourceFromAttributes({
      'service.name': 'weather-agent',
      'wandb.entity': entity,
      'wandb.project': project,
      'deployment.environment.name': 'test',
      'host.cpu.count': 2,
    }),
  );
const unrouted = () => defaultResource().merge(resourceFromAttributes({ 'service.name': 'weather-agent' }));

/** Each export's result code and error message. */
const outcomes = (results: ExportResult[]) => results.map((r) => ({ code: r.code, error: r.error?.message }));

describe('the official OTLP exporter against the emulated trace ingest', () => {
  it('wandb-api-key header, routed by resource attributes (one gzipped batch): every span stored as exported', async () => {
    const exporter = new OTLPTraceExporter({
      url: ingest,
      headers: { 'wandb-api-key': emu.key },
      compression: GZIP,
    });
    const sent = await send(exporter, routed('team-a', 'agents'));
    expect(outcomes(sent.results)).toEqual([{ code: SUCCESS, error: undefined }]);
    expect(sent.flushError).toBeUndefined();
    expect(await stored(sent.traceId)).toEqual(expectedRecords(sent.spans, 'team-a/agents'));
    const [request] = (await emu.requests({ method: 'POST', path: '/trace/agents/otel/v1/traces' })).slice(
      -1,
    );
    expect(request!.headers).toMatchObject({
      'content-type': 'application/x-protobuf',
      'content-encoding': 'gzip',
      'user-agent': expect.stringMatching(/^OTel-OTLP-Exporter-JavaScript\/0\.223\.1$/),
    });
    expect(request!.status).toBe(200);
  });

  it('Authorization: Basic api:KEY, routed by the project_id header (each span as it ends)', async () => {
    const exporter = new OTLPTraceExporter({
      url: ingest,
      headers: { authorization: basic(emu.key), project_id: 'team-b/support' },
    });
    const sent = await send(exporter, unrouted(), 'simple');
    expect(outcomes(sent.results)).toEqual(Array(3).fill({ code: SUCCESS, error: undefined }));
    expect(await stored(sent.traceId)).toEqual(expectedRecords(sent.spans, 'team-b/support'));
  });

  it('resource attributes take precedence over the project_id header', async () => {
    const exporter = new OTLPTraceExporter({
      url: ingest,
      headers: { authorization: basic(emu.key), project_id: 'team-b/support' },
    });
    const sent = await send(exporter, routed('team-a', 'agents'));
    expect(outcomes(sent.results)).toEqual([{ code: SUCCESS, error: undefined }]);
    expect(sent.flushError).toBeUndefined();
    expect(await stored(sent.traceId)).toEqual(expectedRecords(sent.spans, 'team-a/agents'));
  });

  it('configured from the environment alone, as the docs give it (the exporter reads it when constructed)', async () => {
    const names = [
      'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT',
      'OTEL_EXPORTER_OTLP_TRACES_HEADERS',
      'OTEL_RESOURCE_ATTRIBUTES',
      'OTEL_SERVICE_NAME',
    ];
    const saved = names.map((name) => [name, process.env[name]] as const);
    let exporter: OTLPTraceExporter;
    let resource: Resource;
    try {
      process.env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT = ingest;
      process.env.OTEL_EXPORTER_OTLP_TRACES_HEADERS = `wandb-api-key=${emu.key}`;
      process.env.OTEL_RESOURCE_ATTRIBUTES =
        'wandb.entity=team-env,wandb.project=from-env,service.version=3.1';
      process.env.OTEL_SERVICE_NAME = 'weather-agent';
      exporter = new OTLPTraceExporter();
      // The provider does not read OTEL_RESOURCE_ATTRIBUTES itself: the resources package's env detector does.
      resource = defaultResource().merge(detectResources({ detectors: [envDetector] }));
    } finally {
      for (const [name, value] of saved) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
    }
    // Read at construction: the environment is restored before anything is sent.
    const sent = await send(exporter, resource);
    expect(outcomes(sent.results)).toEqual([{ code: SUCCESS, error: undefined }]);
    expect(sent.flushError).toBeUndefined();
    const records = await stored(sent.traceId);
    expect(records).toEqual(expectedRecords(sent.spans, 'team-env/from-env'));
    expect(records[0]!.resource).toMatchObject({
      attributes: expect.arrayContaining([
        { key: 'service.name', value: { stringValue: 'weather-agent' } },
        { key: 'service.version', value: { stringValue: '3.1' } },
      ]),
    });
  });

  it('a batch with neither routing form is accepted as a request but its spans are rejected, not stored', async () => {
    const before = await summary();
    const exporter = new OTLPTraceExporter({ url: ingest, headers: { 'wandb-api-key': emu.key } });
    const sent = await send(exporter, unrouted());
    // OTLP/HTTP: any 2xx is a successful export; the platform drops the spans (api-contract.md §4.2).
    expect(outcomes(sent.results)).toEqual([{ code: SUCCESS, error: undefined }]);
    expect(sent.flushError).toBeUndefined();
    expect(await stored(sent.traceId)).toEqual([]);
    const after = await summary();
    expect(after.rejected - before.rejected).toBe(3);
    expect(after.accepted).toBe(before.accepted);
  });

  it('a wrong key, or none, fails the export with the 401 the emulator answers, and nothing is stored', async () => {
    const wrong = /^Authentication failed$/;
    const none = /^Not authenticated: /;
    const forms: Array<[Record<string, string>, RegExp]> = [
      [{ 'wandb-api-key': 'not-the-key-0000' }, wrong],
      [{ authorization: basic('not-the-key-0000'), project_id: 'team-b/support' }, wrong],
      // The right key as another user than "api" is not this endpoint's credentials.
      [{ authorization: `Basic ${Buffer.from(`someone:${emu.key}`).toString('base64')}` }, none],
      [{}, none],
    ];
    for (const [headers, detail] of forms) {
      const before = await summary();
      const sent = await send(new OTLPTraceExporter({ url: ingest, headers }), routed('team-a', 'agents'));
      expect(sent.results).toHaveLength(1);
      expect(sent.results[0]!.code).toBe(FAILED);
      const error = sent.results[0]!.error as Error & { code?: number; data?: string };
      expect(error).toMatchObject({ name: 'OTLPExporterError', code: 401 });
      // The emulator's own answer, as the exporter kept it: a key that is wrong, or none at all.
      expect(JSON.parse(error.data!).detail).toMatch(detail);
      // The provider's flush rejects with the errors of its processors' exports.
      expect(sent.flushError).toEqual([error]);
      expect(await stored(sent.traceId)).toEqual([]);
      expect(await summary()).toMatchObject({ accepted: before.accepted, rejected: before.rejected });
    }
  });
});
