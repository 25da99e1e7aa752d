// Not for this emulator (Host), or from another site's web page (Origin, Sec-Fetch-Site): refused
// before anything else, in the interface's error shape. The body is left unread, nothing is recorded,
// no fault is used up, no job moves on (guard.ts says why).

import type { ServerResponse } from 'node:http';
import { type Api, errorBody } from '../exchange.js';
import { type Refusal, refuseCrossSite, refuseMisdirected } from '../guard.js';
import type { Arrival, EmulatorParts, Outcome } from './types.js';

export function refuseForeign(a: Arrival, emulator: EmulatorParts): Outcome {
  const own = emulator.own();
  const refused = refuseMisdirected(a.req, own) ?? refuseCrossSite(a.req, own);
  if (!refused) return 'next';
  emulator.log?.(`${refused.status} ${a.method} ${a.path} [refused: ${refused.message}]`);
  sendRefusal(a.res, a.api ?? 'training', a.requestId, refused);
  return 'handled';
}

/** A refusal in the interface's error shape, without an Exchange (there is no body to give one). */
function sendRefusal(res: ServerResponse, api: Api, requestId: string, refusal: Refusal): void {
  const payload = Buffer.from(JSON.stringify(errorBody(api, refusal.status, refusal.message)), 'utf8');
  res.writeHead(refusal.status, {
    'content-type': 'application/json',
    'content-length': String(payload.length),
    'x-request-id': requestId,
    ...refusal.headers,
  });
  res.end(payload);
}
