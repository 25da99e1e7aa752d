// The receiver's 32 slots, in-process with a forwarder that takes everything at once: clients that
// start a request and never finish it, and clients that go away while they wait for a slot, give
// their slots back; the gateway goes on answering. And its memory budget, with a forwarder that holds
// what it is given: past it, requests are answered 503 with Retry-After, whether their bodies are
// large as sent or only once inflated, and what was held is given back.

import { connect, type Socket } from 'node:net';
import { gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { newCounters } from '../../../src/traces/gateway/counters.js';
import type { Forwarder, Outcome } from '../../../src/traces/gateway/forward.js';
import { Receiver } from '../../../src/traces/gateway/gateway.js';
import { encodeRequest } from '../../../src/traces/otlp/otlp.js';
import { patience } from '../../helpers/patience.js';
import { waitFor } from '../../helpers/wait.js';
import { oneSpanRequest } from './one-span.js';

const taken: Forwarder = {
  submit: async (): Promise<Outcome> => ({ taken: 'forwarded', rejected: 0, message: '' }),
} as unknown as Forwarder;

const sockets: Socket[] = [];
let receiver: Receiver | undefined;
/** The requests a holding forwarder has, each settled as taken when called. */
const held: Array<() => void> = [];
afterEach(async () => {
  for (const settle of held.splice(0)) settle();
  for (const socket of sockets.splice(0)) socket.destroy();
  await receiver?.close();
});

/** A request of `size` bytes of body, of which only `sent` are sent. */
function raw(port: number, size: number, sent: number): Socket {
  const socket = connect(port, '127.0.0.1');
  sockets.push(socket);
  socket.on('error', () => {});
  socket.write(
    `POST /v1/traces HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/x-protobuf\r\nContent-Length: ${size}\r\n\r\n`,
  );
  if (sent > 0) socket.write(Buffer.alloc(sent));
  return socket;
}

describe('the receiver slots', () => {
  it('are given back by clients that never finish, and by those gone while they waited', {
    timeout: patience(60_000),
  }, async () => {
    receiver = new Receiver({
      forwarder: taken,
      counters: newCounters(),
      project: { entity: 'team', project: 'p' },
    });
    const origin = await receiver.listen(0);
    const port = Number(new URL(origin).port);
    // 32 clients take every slot and stall in their bodies.
    const stalled = Array.from({ length: 32 }, () => raw(port, 100, 10));
    await waitFor(() => receiver!.load.busy === 32, patience(20_000), 'the slots taken');
    // 32 more wait for a slot, whole, then go away.
    const empty = Buffer.from(encodeRequest({ resourceSpans: [] }));
    const gone = Array.from({ length: 32 }, () => {
      const socket = raw(port, empty.length, 0);
      socket.write(empty);
      return socket;
    });
    await waitFor(() => receiver!.load.waiting === 32, patience(20_000), 'the others waiting');
    for (const socket of gone) socket.destroy();
    for (const socket of stalled) socket.destroy();
    await waitFor(
      () => receiver!.load.busy === 0 && receiver!.load.waiting === 0,
      patience(20_000),
      'every slot back',
    );
    // And a request now is answered.
    const res = await fetch(`${origin}/v1/traces`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-protobuf' },
      body: empty,
    });
    expect(res.status).toBe(200);
  });
});

/** A protobuf request of one span whose name is `size` bytes. */
const request = (size: number) => oneSpanRequest('x'.repeat(size));

describe('the receiver memory budget', () => {
  it('answers 503 with Retry-After past it, for bodies large as sent or once inflated, and gives it back', {
    timeout: patience(60_000),
  }, async () => {
    const holding = {
      submit: () =>
        new Promise<Outcome>((settle) =>
          held.push(() => settle({ taken: 'forwarded', rejected: 0, message: '' })),
        ),
    } as unknown as Forwarder;
    receiver = new Receiver({
      forwarder: holding,
      counters: newCounters(),
      project: { entity: 'team', project: 'p' },
      memoryBudget: 64 * 1024,
    });
    const origin = await receiver.listen(0);
    const post = (body: Buffer, headers: Record<string, string> = {}) =>
      fetch(`${origin}/v1/traces`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-protobuf', ...headers },
        body,
      });
    // Three requests of 20 KB are held by the forwarder: 60 KB of the 64.
    const first = [post(request(20_000)), post(request(20_000)), post(request(20_000))];
    await waitFor(() => held.length === 3, patience(20_000), 'three requests held');
    // A fourth, as sent, and one that is small gzipped but 100 KB inflated, are refused for now.
    for (const refused of [
      await post(request(20_000)),
      await post(gzipSync(request(100_000)), { 'content-encoding': 'gzip' }),
    ]) {
      expect(refused.status).toBe(503);
      expect(refused.headers.get('retry-after')).toBe('5');
      // google.rpc.Status in protobuf, as the request was: its message readable in the bytes.
      expect(Buffer.from(await refused.arrayBuffer()).toString()).toMatch(/try again later/);
    }
    expect(held).toHaveLength(3);
    // Once taken, what they held is given back, and the same requests pass.
    for (const settle of held.splice(0)) settle();
    for (const res of await Promise.all(first)) expect(res.status).toBe(200);
    await waitFor(() => receiver!.load.held === 0, patience(20_000), 'the budget given back');
    const again = post(request(20_000));
    await waitFor(() => held.length === 1, patience(20_000), 'the request held');
    held.splice(0)[0]!();
    expect((await again).status).toBe(200);
    expect(receiver.load.held).toBe(0);
  });
});
