import { connect, createServer } from 'node:net';

/** Ports below 1024 are never handed out as ephemeral ports, so no emulator of the run can take one. */
const CANDIDATES = [1, 9, 47, 51, 61, 83, 97, 103];

function refused(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ port, host: '127.0.0.1' });
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code === 'ECONNREFUSED'));
  });
}

/**
 * A loopback port that nothing listens on: connections are refused. A privileged one, checked once:
 * a free ephemeral port would do only until another test file's server took it, which in a parallel
 * run it sometimes did.
 */
export async function closedPort(): Promise<number> {
  for (const port of CANDIDATES) if (await refused(port)) return port;
  throw new Error(`something listens on every one of the ports ${CANDIDATES.join(', ')} of 127.0.0.1`);
}

/** A loopback port free a moment ago, for a server a test starts itself on a port it must know first. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
    probe.on('error', reject);
  });
}
