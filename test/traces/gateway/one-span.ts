// An encoded ExportTraceServiceRequest of one span named `name`, with no resource attributes (the
// gateway or the spool routes it): its ids derived from the name, so that two names are two spans.

import { encodeRequest } from '../../../src/traces/otlp/otlp.js';

export function oneSpanRequest(name: string): Buffer {
  return Buffer.from(
    encodeRequest({
      resourceSpans: [
        {
          resource: { attributes: [] },
          scopeSpans: [
            {
              scope: { name: 'test' },
              spans: [
                {
                  traceId: Buffer.alloc(16, (name.length % 255) + 1),
                  spanId: Buffer.from(name.padEnd(8, '.').slice(0, 8)),
                  name,
                  kind: 1,
                  startTimeUnixNano: { low: 1, high: 0 },
                  endTimeUnixNano: { low: 2, high: 0 },
                },
              ],
            },
          ],
        },
      ],
    }),
  );
}
