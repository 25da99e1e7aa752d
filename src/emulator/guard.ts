// Who may talk to the emulator. First the Host and Origin checks of lib/loopback-guard.ts, shared with
// the trace gateway (which says why a loopback server needs them), before anything else: the body is
// not read, nothing is recorded, no fault is used up, no state is touched.
//
// The control routes (/_emulator/…) then need a key the emulator was started with, as the Training
// and Inference APIs do, and take JSON only (415 for a body of another type).
//
// Each check is a function of the request that answers with the refusal, or undefined to go on.

import type { IncomingMessage } from 'node:http';
import type { Refusal } from '../lib/loopback-guard.js';

export {
  type OwnNames,
  ownNames,
  type Refusal,
  refuseCrossSite,
  refuseMisdirected,
} from '../lib/loopback-guard.js';

export function bearerKey(req: IncomingMessage): string | undefined {
  const header = req.headers.authorization;
  const match = header ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
  return match?.[1];
}

/** The control routes need a key the emulator was started with, like every route of the platform. */
export function refuseControlWithoutKey(
  req: IncomingMessage,
  keys: ReadonlySet<string>,
): Refusal | undefined {
  const key = bearerKey(req);
  if (key !== undefined && keys.has(key)) return undefined;
  return {
    status: 401,
    message: key === undefined ? 'Not authenticated' : 'Authentication failed',
    headers: { 'www-authenticate': 'Bearer' },
  };
}

/** application/json, with or without parameters (charset). */
export function isJson(contentType: string | undefined): boolean {
  return contentType !== undefined && /^application\/json\s*(;|$)/i.test(contentType.trim());
}

/**
 * The control routes take JSON only: a "simple" request's types (text/plain, form data) are what a
 * page can send elsewhere without asking first. A request without a body may leave the type out.
 */
export function refuseNonJson(req: IncomingMessage, body: Buffer): Refusal | undefined {
  const type = req.headers['content-type'];
  if (type === undefined ? body.length === 0 : isJson(type)) return undefined;
  return { status: 415, message: 'Unsupported Media Type: the control routes take application/json' };
}
