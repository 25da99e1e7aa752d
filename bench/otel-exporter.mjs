// The baseline for `aip traces send`: the official OpenTelemetry JS OTLP/HTTP protobuf exporter
// (@opentelemetry/exporter-trace-otlp-proto) sending the same spans to the same emulator, gzip on,
// batches of the same size, as many in flight as aip keeps. Its spans are built in memory before the
// clock starts (an SDK hands the exporter finished spans), so it is timed on serialising and sending
// only, while aip is timed from reading the file to its last answer.
//
//   node bench/otel-exporter.mjs <spans.jsonl> <trace-url> <key> <team/project>
// Prints one JSON line: {spans, build_seconds, seconds, spans_per_second, from_file_spans_per_second,
// max_rss_mb, export_cpu_us}: `seconds` and `export_cpu_us` are the export alone, `from_file` adds
// reading the file into SDK spans.

import { readFileSync } from 'node:fs';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';

const [file, traceUrl, key, project] = process.argv.slice(2);
const BATCH = 512;
const IN_FLIGHT = 4;

const hrTime = (nanos) => {
  const n = BigInt(nanos ?? 0);
  return [Number(n / 1_000_000_000n), Number(n % 1_000_000_000n)];
};

/** An OTLP/JSON AnyValue as an SDK attribute value (kvlists as objects, bytes as Uint8Array). */
function plain(value = {}) {
  if ('stringValue' in value) return value.stringValue;
  if ('boolValue' in value) return value.boolValue;
  if ('intValue' in value) return Number(value.intValue);
  if ('doubleValue' in value) return Number(value.doubleValue);
  if ('bytesValue' in value) return Buffer.from(value.bytesValue, 'base64');
  if ('arrayValue' in value) return (value.arrayValue.values ?? []).map(plain);
  if ('kvlistValue' in value) return attributes(value.kvlistValue.values);
  return '';
}

function attributes(list = []) {
  const out = {};
  for (const kv of list) out[kv.key] = plain(kv.value);
  return out;
}

/** ReadableSpan objects, as the SDK would hand them over. */
function readableSpans(path) {
  const spans = [];
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    if (!line.trim()) continue;
    for (const rs of JSON.parse(line).resourceSpans) {
      const resource = { attributes: attributes(rs.resource?.attributes), schemaUrl: rs.schemaUrl };
      for (const ss of rs.scopeSpans) {
        const scope = { ...ss.scope, schemaUrl: ss.schemaUrl };
        for (const s of ss.spans) {
          const context = { traceId: s.traceId, spanId: s.spanId, traceFlags: (s.flags ?? 1) & 0xff };
          spans.push({
            name: s.name,
            kind: Math.max(0, (s.kind ?? 1) - 1),
            spanContext: () => context,
            parentSpanContext: s.parentSpanId
              ? { traceId: s.traceId, spanId: s.parentSpanId, traceFlags: 1 }
              : undefined,
            startTime: hrTime(s.startTimeUnixNano),
            endTime: hrTime(s.endTimeUnixNano),
            duration: [0, 0],
            ended: true,
            status: { code: s.status?.code ?? 0, message: s.status?.message },
            attributes: attributes(s.attributes),
            links: (s.links ?? []).map((l) => ({
              context: { traceId: l.traceId, spanId: l.spanId, traceFlags: l.flags ?? 0 },
              attributes: attributes(l.attributes),
            })),
            events: (s.events ?? []).map((e) => ({
              name: e.name,
              time: hrTime(e.timeUnixNano),
              attributes: attributes(e.attributes),
            })),
            resource,
            instrumentationScope: scope,
            droppedAttributesCount: s.droppedAttributesCount ?? 0,
            droppedEventsCount: s.droppedEventsCount ?? 0,
            droppedLinksCount: s.droppedLinksCount ?? 0,
          });
        }
      }
    }
  }
  return spans;
}

const building = performance.now();
const spans = readableSpans(file);
const buildSeconds = (performance.now() - building) / 1000;
const exporter = new OTLPTraceExporter({
  url: `${traceUrl}/agents/otel/v1/traces`,
  headers: { authorization: `Basic ${Buffer.from(`api:${key}`).toString('base64')}`, project_id: project },
  compression: 'gzip',
  concurrencyLimit: IN_FLIGHT * 2,
});

const batches = [];
for (let i = 0; i < spans.length; i += BATCH) batches.push(spans.slice(i, i + BATCH));
const started = performance.now();
const cpuBefore = process.cpuUsage();
let next = 0;
let failed = 0;
await Promise.all(
  Array.from({ length: IN_FLIGHT }, async () => {
    while (next < batches.length) {
      const batch = batches[next++];
      const result = await new Promise((resolve) => exporter.export(batch, resolve));
      if (result.code !== 0) failed++;
    }
  }),
);
const seconds = (performance.now() - started) / 1000;
await exporter.shutdown();
const cpu = process.cpuUsage(cpuBefore);
if (failed) {
  console.error(`${failed} batches failed`);
  process.exit(1);
}
console.log(
  JSON.stringify({
    spans: spans.length,
    build_seconds: buildSeconds,
    seconds,
    spans_per_second: Math.round(spans.length / seconds),
    from_file_spans_per_second: Math.round(spans.length / (seconds + buildSeconds)),
    max_rss_mb: Math.round(process.resourceUsage().maxRSS / 1024),
    // The export phase's CPU, every thread of the process (gzip runs on libuv's pool).
    export_cpu_us: cpu.user + cpu.system,
  }),
);
