// The receiver's 32 slots, in-process with a forwarder that takes everything at once: clients that
// start a request and never finish it, and clients that go away while they wait for a slot, give
// their slots back; the gateway goes on answering.

import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { newCounters } from '../../../src/traces/gateway/counters.js';
import type { Forwarder, Outcome } from '../../../src/traces/gateway/forward.js';
import { Receiver } from '../../../src/traces/gateway/gateway.js';
import { encodeRequest } from '../../../src/traces/otlp/otlp.js';
import { patience } from '../../helpers/patience.js';
import { waitFor } from '../../helpers/wait.js';

const taken: Forwarder = {
  submit: async (): Promise<Outcome> => ({ taken: 'forwarded', rejected: 0, message: '' }),
} as unknown as Forwarder;

const sockets: Socket[] = [];
let receiver: Receiver | undefined;
afterEach(async () => {
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
