// Synthetic spans, as OpenTelemetry's telemetrygen makes them, for trying ingest out and measuring
// it: traces of parent and child spans from a few services, with every kind of attribute value,
// events, links and statuses. Seeded, so the same seed gives the same file. Written in canonical
// OTLP/JSON (no field that holds its default), which is what the emulator gives back when asked.

import { seededRandom } from '../../lib/seeded-random.js';

type Json = Record<string, unknown>;

export interface GenerateOptions {
  spans: number;
  /** Spans per ExportTraceServiceRequest document. */
  perDocument: number;
  seed: number;
  /** Routing attributes on every resource; none when absent (the sender's project fills them in). */
  project?: { entity: string; project: string };
  /** Start of the first trace, in ns since the epoch. */
  startNanos: bigint;
}

const SERVICES = ['checkout', 'agent-runtime', 'retriever', 'llm-gateway'];
const OPERATIONS = [
  'GET /cart',
  'invoke_agent planner',
  'chat gpt-oss-20b',
  'execute_tool search',
  'db.query',
  'POST /v1/chat/completions',
];
const WORDS = ['alpha', 'beta', 'gamma', 'delta', 'user-42', 'https://example.com/cart?id=7', ''];
/** Text that JSON and protobuf must carry exactly; rarer, as it is in real traces. */
const AWKWARD = ['ünïcødé', 'quote"d', 'back\\slash', 'tab\there', 'emoji 🚀', 'line\nbreak'];

export function* generateDocuments(options: GenerateOptions): Generator<Json> {
  const random = seededRandom(options.seed);
  const int = (n: number) => Math.floor(random() * n);
  const pick = <T>(list: readonly T[]): T => list[int(list.length)]!;
  const hex = (bytes: number) => {
    let out = '';
    for (let i = 0; i < bytes; i++) out += int(256).toString(16).padStart(2, '0');
    return /[^0]/.test(out) ? out : `${out.slice(0, -1)}1`;
  };
  const value = (depth: number): Json => {
    switch (int(depth > 1 ? 6 : 8)) {
      case 0:
        return { stringValue: random() < 0.03 ? pick(AWKWARD) : pick(WORDS) };
      case 1:
        return { boolValue: random() < 0.5 };
      case 2:
        return {
          intValue: String(pick([0, 1, -7, 42, 1_000_000, 2 ** 40]) * (random() < 0.5 ? -1 : 1) || 0),
        };
      case 3:
        return { intValue: pick(['9007199254740993', '-9223372036854775808', '9223372036854775807']) };
      case 4:
        return { doubleValue: pick([0.5, -1.25, Math.PI, 1e-9, 6.02e23, 2]) };
      case 5:
        return { bytesValue: Buffer.from(hex(1 + int(12)), 'hex').toString('base64') };
      case 6:
        return { arrayValue: { values: Array.from({ length: int(4) }, () => value(depth + 1)) } };
      default:
        return { kvlistValue: { values: attributes(1 + int(3), depth + 1) } };
    }
  };
  const attributes = (count: number, depth = 0): Json[] =>
    Array.from({ length: count }, (_, i) => ({
      key: `attr.${depth}.${i}.${pick(['a', 'b', 'c'])}`,
      value: value(depth),
    }));
  const resources = SERVICES.map((service, i) => {
    const attrs: Json[] = [
      { key: 'service.name', value: { stringValue: service } },
      { key: 'service.instance.id', value: { stringValue: hex(4) } },
    ];
    if (options.project) {
      attrs.push({ key: 'wandb.entity', value: { stringValue: options.project.entity } });
      attrs.push({ key: 'wandb.project', value: { stringValue: options.project.project } });
    }
    const resource: Json = { attributes: attrs };
    if (i === 1) resource.droppedAttributesCount = 2;
    return resource;
  });

  let made = 0;
  let clock = options.startNanos;
  while (made < options.spans) {
    const count = Math.min(options.perDocument, options.spans - made);
    const r = int(resources.length);
    const scope: Json = { name: `aip.generate.${SERVICES[r]}`, version: '1.0.0' };
    if (r === 2) scope.attributes = [{ key: 'scope.kind', value: { stringValue: 'library' } }];
    const spans: Json[] = [];
    let traceId = hex(16);
    let parents: string[] = [];
    for (let i = 0; i < count; i++) {
      if (random() < 0.15) {
        traceId = hex(16);
        parents = [];
      }
      const spanId = hex(8);
      const start = clock + BigInt(int(1_000_000));
      clock += BigInt(1_000 + int(50_000));
      const span: Json = {
        traceId,
        spanId,
        name: pick(OPERATIONS),
        kind: 1 + int(5),
        startTimeUnixNano: String(start),
        endTimeUnixNano: String(start + BigInt(int(2_000_000_000))),
      };
      if (parents.length) span.parentSpanId = pick(parents);
      parents.push(spanId);
      if (random() < 0.1) span.traceState = `vendor=${hex(2)}`;
      if (random() < 0.5) span.flags = pick([1, 256, 257, 769]);
      const attrCount = int(6);
      if (attrCount) span.attributes = attributes(attrCount);
      if (random() < 0.05) span.droppedAttributesCount = 1 + int(3);
      if (random() < 0.3) {
        span.events = Array.from({ length: 1 + int(2) }, () => {
          const event: Json = {
            timeUnixNano: String(start + BigInt(int(1_000_000))),
            name: pick(['exception', 'retry', 'gen_ai.choice']),
          };
          if (random() < 0.7) event.attributes = attributes(1 + int(3));
          if (random() < 0.1) event.droppedAttributesCount = 1;
          return event;
        });
      }
      if (random() < 0.05) span.droppedEventsCount = 1 + int(2);
      if (random() < 0.15) {
        span.links = Array.from({ length: 1 + int(2) }, () => {
          const link: Json = { traceId: hex(16), spanId: hex(8) };
          if (random() < 0.3) link.traceState = 'k=v';
          if (random() < 0.5) link.attributes = attributes(1);
          if (random() < 0.3) link.flags = 1;
          return link;
        });
      }
      if (random() < 0.02) span.droppedLinksCount = 1;
      const outcome = random();
      if (outcome < 0.1) span.status = { code: 2, message: pick(['timeout', 'upstream 503', 'tool failed']) };
      else if (outcome < 0.4) span.status = { code: 1 };
      else if (outcome < 0.45) span.status = { message: 'unset, with a message' };
      spans.push(span);
    }
    made += count;
    const scopeSpans: Json = { scope, spans };
    if (r === 3) scopeSpans.schemaUrl = 'https://opentelemetry.io/schemas/1.26.0';
    const resourceSpans: Json = { resource: resources[r], scopeSpans: [scopeSpans] };
    if (r === 0) resourceSpans.schemaUrl = 'https://opentelemetry.io/schemas/1.27.0';
    yield { resourceSpans: [resourceSpans] };
  }
}
