import { createServer } from 'node:net';

/** A loopback port that nothing listens on (it was free a moment ago): connections are refused. */
export function closedPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
    probe.on('error', reject);
  });
}
