// Batches within their byte limit, even when a resource grows after its spans were placed (a
// document read value by value with its resource last, which the review found sent as one request
// 40% over the limit): the batch is cut in halves, and every span still goes once, with its context.

import { describe, expect, it } from 'vitest';
import { decodeRequest } from '../../../src/traces/otlp/otlp.js';
import {
  BatchBuilder,
  type EncodedBatch,
  ResourceContext,
  ScopeContext,
} from '../../../src/traces/read/batches.js';

const span = (i: number) => ({
  traceId: '5b8efff798038103d269b633813fc60c',
  spanId: `eee19b7ec3c1${String(i).padStart(4, '0')}`,
  name: `span ${i} ${'x'.repeat(600)}`,
});

describe('batches', () => {
  it('cut a batch whose resource grew after its spans into requests within the limit', () => {
    const batches: EncodedBatch[] = [];
    const limit = 64 * 1024;
    const builder = new BatchBuilder(
      { spans: 1000, bytes: limit },
      (c) => c.resource,
      (b) => batches.push(b),
    );
    const resource = new ResourceContext(1);
    const scope = new ScopeContext(resource);
    for (let i = 0; i < 80; i++) expect(builder.addJson(span(i), scope)).toBe(true);
    // The resource, as it comes after the spans: 40 KB of attributes.
    resource.resource = { attributes: [{ key: 'big', value: { stringValue: 'y'.repeat(40_000) } }] };
    resource.version++;
    builder.flush();
    expect(batches.length).toBeGreaterThan(1);
    for (const batch of batches) expect(batch.bytes.length).toBeLessThanOrEqual(limit);
    const names = batches.flatMap((b) =>
      decodeRequest(b.bytes).resourceSpans.flatMap((rs) => {
        expect(rs.resource?.attributes?.[0]?.value?.stringValue).toHaveLength(40_000);
        return rs.scopeSpans.flatMap((ss) => ss.spans.map((s) => s.name));
      }),
    );
    expect(names).toEqual(Array.from({ length: 80 }, (_, i) => span(i).name));
    expect(batches.reduce((n, b) => n + b.spans, 0)).toBe(80);
  });

  it('keep one span that is over the limit on its own, as it cannot be cut', () => {
    const batches: EncodedBatch[] = [];
    const builder = new BatchBuilder(
      { spans: 10, bytes: 1000 },
      (c) => c.resource,
      (b) => batches.push(b),
    );
    const scope = new ScopeContext(new ResourceContext(1));
    builder.addJson(span(1), scope);
    builder.addJson({ ...span(2), name: 'z'.repeat(5000) }, scope);
    builder.flush();
    expect(batches.map((b) => b.spans)).toEqual([1, 1]);
  });
});
