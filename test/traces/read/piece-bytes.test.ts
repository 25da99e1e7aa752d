// The pieces of a JSON Lines input are cut in buffers used again (piece-bytes.ts), filled straight
// from a file or copied from a stream's chunks: whatever the chunks' sizes, and with lines longer than
// a buffer (which grows) or than a piece may be (read on from there on this thread), the spans read
// are the same, each once. Chunk sizes come from the run's seed (test/helpers/seed.ts).

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { openSource } from '../../../src/fs/open-source.js';
import { seededRandom } from '../../../src/lib/seeded-random.js';
import { generateDocuments } from '../../../src/traces/make/generate.js';
import { decodeRequest } from '../../../src/traces/otlp/otlp.js';
import { DEFAULT_LIMITS } from '../../../src/traces/read/batches.js';
import { type ReadResult, readSpans } from '../../../src/traces/read/read-input.js';
import { fakeIO } from '../../helpers/io.js';
import { TEST_SEED } from '../../helpers/seed.js';

const dir = mkdtempSync(join(tmpdir(), 'aip-piece-bytes-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Lines of 50 spans, one line of 6,000 (~3.5 MB: past a 1 MB buffer), then more; the last without a newline. */
function input(): Buffer {
  const docs = (spans: number, perDocument: number, seed: number) =>
    [
      ...generateDocuments({
        spans,
        perDocument,
        seed,
        startNanos: 1n,
        project: { entity: 't', project: 'p' },
      }),
    ].map((d) => JSON.stringify(d));
  const lines = [...docs(4000, 50, 1), ...docs(6000, 6000, 2), ...docs(3000, 50, 3)];
  return Buffer.from(lines.join('\n'));
}

/** The span ids of every batch, sorted: what would be sent. */
function spanIds(read: ReadResult): string[] {
  const ids: string[] = [];
  for (const batch of read.batches) {
    const bytes = read.spool.get(batch.slot);
    const request = decodeRequest(batch.gzipped ? gunzipSync(bytes) : bytes);
    for (const rs of request.resourceSpans)
      for (const ss of rs.scopeSpans ?? [])
        for (const span of ss.spans ?? []) ids.push(Buffer.from(span.spanId!).toString('hex'));
  }
  read.spool.close();
  return ids.sort();
}

async function* chunked(bytes: Buffer, seed: number): AsyncGenerator<Buffer> {
  const random = seededRandom(seed);
  for (let at = 0; at < bytes.length; ) {
    // Mostly small chunks, some past a piece's size.
    const size = random() < 0.1 ? 1 + Math.floor(random() * 3_000_000) : 1 + Math.floor(random() * 70_000);
    yield Buffer.from(bytes.subarray(at, at + size));
    at += size;
  }
}

const options = (maxLineBytes?: number) => ({
  limits: DEFAULT_LIMITS,
  project: undefined,
  workers: 0,
  ...(maxLineBytes ? { maxLineBytes } : {}),
});

describe('pieces cut in buffers used again', () => {
  const bytes = input();
  const file = join(dir, 'spans.jsonl');
  writeFileSync(file, bytes);

  it('read from a file at positions and from a stream in chunks of any size: the same spans, each once', async () => {
    const fromFile = await readSpans(openSource(file, fakeIO().io), options());
    expect(fromFile.problems).toEqual([]);
    expect(fromFile.spans).toBe(13_000);
    const expected = spanIds(fromFile);
    expect(new Set(expected).size).toBe(expected.length);
    for (const seed of [TEST_SEED, TEST_SEED + 1, TEST_SEED + 2]) {
      const fromStream = await readSpans({ name: 'stdin', stream: chunked(bytes, seed) }, options());
      expect(fromStream.problems, `seed ${seed}`).toEqual([]);
      expect(spanIds(fromStream), `seed ${seed}`).toEqual(expected);
    }
  });

  it('a line longer than a piece may be (a 2 MB line limit) is read on this thread from there: still every span once', async () => {
    const expected = spanIds(await readSpans(openSource(file, fakeIO().io), options()));
    const fromFile = await readSpans(openSource(file, fakeIO().io), options(2 * 1024 * 1024));
    expect(fromFile.problems).toEqual([]);
    expect(spanIds(fromFile)).toEqual(expected);
    const fromStream = await readSpans(
      { name: 'stdin', stream: chunked(bytes, TEST_SEED) },
      options(2 * 1024 * 1024),
    );
    expect(fromStream.problems).toEqual([]);
    expect(spanIds(fromStream)).toEqual(expected);
  });
});
