// The spool's drainer when one spooled request trips the platform (a 500 for it alone) while the others
// go through: it must not hold the rest of the spool behind it, and after MAX_STRIKES turns it is set
// aside as `.failing`, kept. Two failures in a row are the platform away: the order is kept, nothing
// is deferred. Over real HTTP, against a trace ingest of the test's own that fails what it is told to.

import { EventEmitter } from 'node:events';
import { existsSync, readdirSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { nodeTransport } from '../../../src/api/transport.js';
import { Context } from '../../../src/context.js';
import { newCounters } from '../../../src/traces/gateway/counters.js';
import { drainSpool, MAX_STRIKES } from '../../../src/traces/gateway/drain.js';
import { DiskSpool } from '../../../src/traces/gateway/spool.js';
import { decodeRequest } from '../../../src/traces/otlp/otlp.js';
import { traceClient } from '../../../src/traces/send/client.js';
import { fakeIO } from '../../helpers/io.js';
import { tempDir } from '../../helpers/temp.js';
import { oneSpanRequest } from './one-span.js';

/** A trace ingest that answers `failWith` to requests whose span names `fails` picks, 200 to others. */
function ingest(fails: (name: string) => boolean, failWith = 500) {
  const tried: string[] = [];
  const taken: string[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const request = decodeRequest(gunzipSync(Buffer.concat(chunks)));
      const names = request.resourceSpans.flatMap((rs) =>
        (rs.scopeSpans ?? []).flatMap((ss) => (ss.spans ?? []).map((s) => s.name ?? '')),
      );
      tried.push(...names);
      if (names.some(fails)) {
        res.writeHead(failWith, { 'content-type': 'application/json' });
        res.end('{"detail":"tripped"}');
        return;
      }
      taken.push(...names);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{}');
    });
  });
  return { server, tried, taken };
}

const servers: Server[] = [];
const spools: DiskSpool[] = [];
afterEach(async () => {
  for (const spool of spools.splice(0)) spool.close();
  for (const server of servers.splice(0)) await new Promise((resolve) => server.close(resolve));
});

async function setUp(fails: (name: string) => boolean, failWith?: number) {
  const platform = ingest(fails, failWith);
  servers.push(platform.server);
  await new Promise<void>((resolve) => platform.server.listen(0, '127.0.0.1', resolve));
  const { port } = platform.server.address() as AddressInfo;
  const dir = tempDir();
  const ctx = new Context({
    env: {
      AIP_CONFIG_DIR: dir,
      AIP_KEYRING: 'off',
      AIP_API_KEY: 'test-key',
      AIP_PROJECT: 'team/project',
      AIP_TRACE_URL: `http://127.0.0.1:${port}`,
      AIP_MAX_RETRIES: '0',
    },
    io: fakeIO().io,
    transport: nodeTransport,
    sleep: async () => undefined,
    random: () => 0.5,
    signals: new EventEmitter(),
  });
  const spool = DiskSpool.open(join(dir, 'spool'));
  spools.push(spool);
  const put = (name: string) => spool.put(gzipSync(oneSpanRequest(name)), 1);
  const warnings: string[] = [];
  const counters = newCounters();
  const drain = () =>
    drainSpool(spool, traceClient(ctx), counters, { onWarning: (message) => warnings.push(message) });
  return { platform, spool, put, drain, warnings, counters, dir: join(dir, 'spool') };
}

describe('a spooled request that trips the platform alone', () => {
  it('is put behind the others, which go through, and is set aside after MAX_STRIKES turns', async () => {
    const { platform, spool, put, drain, warnings, counters, dir } = await setUp((n) => n === 'poison');
    put('poison');
    for (const name of ['a', 'b', 'c']) put(name);
    const first = await drain();
    // Everything behind it went through, in order; it is left, and its failure is the result.
    expect(platform.taken).toEqual(['a', 'b', 'c']);
    expect(first.sent).toBe(3);
    expect(first.error?.message).toMatch(/500|tripped/);
    expect(spool.count).toBe(1);
    // Each later turn with something behind it is another strike; the last sets it aside, kept.
    for (let turn = 2; turn <= MAX_STRIKES; turn++) {
      put(`n${turn}`);
      await drain();
    }
    expect(platform.taken).toEqual(['a', 'b', 'c', 'n2', 'n3', 'n4', 'n5']);
    expect(spool.count).toBe(0);
    expect(readdirSync(dir).filter((f) => f.endsWith('.failing'))).toHaveLength(1);
    expect(counters).toMatchObject({ forwarded: 7, dropped: 1 });
    expect(warnings.join('\n')).toMatch(/failed 5 times while others went through .*: kept as .*\.failing/);
    // Set aside, it is tried no more.
    const tries = platform.tried.filter((n) => n === 'poison').length;
    put('z');
    expect(await drain()).toEqual({ sent: 1, batches: 1 });
    expect(platform.tried.filter((n) => n === 'poison')).toHaveLength(tries);
  });

  it('is not deferred when the one behind it fails too: the platform is away, the order kept', async () => {
    for (const status of [500, 503]) {
      const { platform, spool, put, drain, counters } = await setUp(() => true, status);
      for (const name of ['a', 'b', 'c', 'd']) put(name);
      const result = await drain();
      // One try of the oldest, one of the next, then the backoff's: nothing more sent, nothing moved.
      expect(platform.tried).toEqual(['a', 'b']);
      expect(result).toMatchObject({ sent: 0 });
      expect(result.error).toBeDefined();
      expect(spool.count).toBe(4);
      expect(spool.oldest() && existsSync(join(spool.dir, spool.oldest()!.name))).toBe(true);
      platform.tried.length = 0;
      await drain();
      expect(platform.tried).toEqual(['a', 'b']);
      expect(counters.dropped).toBe(0);
    }
  });
});
