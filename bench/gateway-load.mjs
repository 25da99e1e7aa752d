// The load for bench/gateway.mjs: the official OpenTelemetry JS SDK and its OTLP/HTTP protobuf
// exporter, as an agent would run them, exporting `count` GenAI chat spans to `url`. The spans are
// made before the clock starts; the time is the export alone (forceFlush, batches of 512).
//
//   node bench/gateway-load.mjs <url> <count> [<headers as JSON>] [<resource attributes as JSON>]
// Prints one JSON line: {spans, seconds, spans_per_second, failed}.

import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';

const [url, countText, headersJson = '{}', resourceJson = '{}'] = process.argv.slice(2);
const count = Number(countText);
let failed = 0;
// forceFlush hands every batch over at once: the exporter's own limit (30 in flight) would refuse the rest.
const inner = new OTLPTraceExporter({
  url,
  headers: JSON.parse(headersJson),
  compression: 'gzip',
  concurrencyLimit: Math.ceil(count / 512) + 1,
});
const exporter = {
  export: (spans, done) =>
    inner.export(spans, (result) => {
      if (result.code !== 0) failed += spans.length;
      done(result);
    }),
  shutdown: () => inner.shutdown(),
  forceFlush: () => inner.forceFlush(),
};
const provider = new TracerProvider({
  resource: resourceFromAttributes({ 'service.name': 'bench-agent', ...JSON.parse(resourceJson) }),
  spanProcessors: [
    new BatchSpanProcessor({
      exporter,
      maxExportBatchSize: 512,
      maxQueueSize: count + 1,
      scheduledDelayMillis: 3_600_000,
    }),
  ],
});
const tracer = provider.getTracer('bench');
for (let i = 0; i < count; i++) {
  const span = tracer.startSpan(`chat OpenPipe/Qwen3-14B-Instruct`, {
    attributes: {
      'gen_ai.operation.name': 'chat',
      'gen_ai.request.model': 'OpenPipe/Qwen3-14B-Instruct',
      'gen_ai.usage.input_tokens': 100 + (i % 50),
      'gen_ai.usage.output_tokens': 20 + (i % 30),
      'gen_ai.conversation.id': `conv-${i % 100}`,
    },
  });
  span.end();
}
const started = performance.now();
await provider.forceFlush();
const seconds = (performance.now() - started) / 1000;
await provider.shutdown();
process.stdout.write(
  `${JSON.stringify({ spans: count, seconds, spans_per_second: Math.round(count / seconds), failed })}\n`,
);
