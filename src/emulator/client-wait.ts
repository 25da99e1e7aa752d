// A wait on a timer that ends early when the client goes away, for the emulator's stalls and paced
// replies: nothing blocks the event loop, and nothing is then written to a socket that is gone.

import type { ServerResponse } from 'node:http';

/** Waits `ms`, or less if the client goes away meanwhile; whether the client is still there. */
export function waitForClient(ms: number, res: ServerResponse): Promise<boolean> {
  if (res.destroyed) return Promise.resolve(false);
  return new Promise((resolve) => {
    const timer = setTimeout(() => finish(true), ms);
    const gone = () => finish(false);
    function finish(elapsed: boolean) {
      clearTimeout(timer);
      res.off('close', gone);
      resolve(elapsed && !res.destroyed);
    }
    res.once('close', gone);
  });
}
