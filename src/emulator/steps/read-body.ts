// The body, read whole before anything looks at the request (the record keeps it, the handlers parse
// it), up to a cap: a larger one is answered 413 and the connection closed, unrecorded and unfaulted.

import type { IncomingMessage } from 'node:http';
import type { Arrival } from './types.js';

const MAX_BODY_BYTES = 64 * 1024 * 1024;

class BodyTooLarge extends Error {}

async function readCapped(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) throw new BodyTooLarge();
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

/** The body, or 'handled' when it was too large (and so answered). Other read errors are thrown. */
export async function readBody(a: Arrival): Promise<Buffer | 'handled'> {
  try {
    return await readCapped(a.req);
  } catch (error) {
    if (!(error instanceof BodyTooLarge)) throw error;
    a.res.writeHead(413, {
      'content-type': 'application/json',
      'x-request-id': a.requestId,
      connection: 'close',
    });
    a.res.end(JSON.stringify({ detail: 'Request body too large' }));
    return 'handled';
  }
}
