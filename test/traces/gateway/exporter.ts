// The official OpenTelemetry JS exporters (OTLP/HTTP protobuf and JSON) as the gateway's clients:
// spans made with the SDK, exported in batches, with what became of each export.

import { OTLPTraceExporter as JsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as ProtoExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  BatchSpanProcessor,
  type ReadableSpan,
  type SpanExporter,
  TracerProvider,
} from '@opentelemetry/sdk-trace';

type ExportResult = Parameters<Parameters<SpanExporter['export']>[1]>[0];

export interface Exported {
  /** trace id + span id of every span an export of which succeeded (the gateway acknowledged it). */
  acknowledged: string[];
  /** Of those that failed. */
  failed: string[];
}

/** Records what each export of the inner exporter came to. */
class Recording implements SpanExporter {
  readonly result: Exported = { acknowledged: [], failed: [] };
  constructor(private readonly inner: SpanExporter) {}
  export(spans: ReadableSpan[], done: (result: ExportResult) => void): void {
    this.inner.export(spans, (result) => {
      const ids = spans.map((s) => `${s.spanContext().traceId}${s.spanContext().spanId}`);
      (result.code === 0 ? this.result.acknowledged : this.result.failed).push(...ids);
      done(result);
    });
  }
  shutdown(): Promise<void> {
    return this.inner.shutdown();
  }
  forceFlush(): Promise<void> {
    return this.inner.forceFlush?.() ?? Promise.resolve();
  }
}

/** Exports `count` GenAI-looking spans to the gateway at `origin`, `perBatch` an export request. */
export async function exportSpans(
  origin: string,
  format: 'protobuf' | 'json',
  count: number,
  options: {
    resource?: Record<string, string>;
    perBatch?: number;
    attributes?: Record<string, string>;
    /** An event on each span. */
    event?: { name: string; attributes: Record<string, string> };
  } = {},
): Promise<Exported> {
  const url = `${origin}/v1/traces`;
  const inner = format === 'json' ? new JsonExporter({ url }) : new ProtoExporter({ url });
  const recording = new Recording(inner);
  const provider = new TracerProvider({
    resource: resourceFromAttributes({ 'service.name': 'gateway-test-agent', ...options.resource }),
    spanProcessors: [
      new BatchSpanProcessor({
        exporter: recording,
        maxExportBatchSize: options.perBatch ?? 100,
        maxQueueSize: count + 1,
        scheduledDelayMillis: 60_000,
      }),
    ],
  });
  const tracer = provider.getTracer('gateway-test');
  for (let i = 0; i < count; i++) {
    const span = tracer.startSpan(`chat ${i}`, {
      attributes: {
        'gen_ai.operation.name': 'chat',
        'gen_ai.request.model': 'OpenPipe/Qwen3-14B-Instruct',
        'gen_ai.usage.input_tokens': 10 + i,
        ...options.attributes,
      },
    });
    if (options.event) span.addEvent(options.event.name, options.event.attributes);
    span.end();
  }
  await provider.forceFlush().catch(() => undefined);
  await provider.shutdown().catch(() => undefined);
  return recording.result;
}
