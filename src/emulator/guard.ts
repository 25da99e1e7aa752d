// Who may talk to the emulator. A server on loopback that answers whatever a request's Host and Origin
// is can be driven by any web page open in the user's browser: a cross-site "simple" request (a form
// POST, fetch with text/plain) goes out without a preflight, and a DNS-rebinding name (a page's own
// host made to resolve to 127.0.0.1) makes the emulator same-origin with the page, which then reads
// the answers. So, before anything else (the body is not read, nothing is recorded, no fault is
// used up, no state is touched):
//
// - Host must name the emulator: localhost, 127.0.0.1, [::1] (or the address it listens on), with its
//   own port. Anything else is 421; no Host at all (HTTP/1.0; node itself answers HTTP/1.1 without
//   one with 400) is 400: a browser always sends one, so only a local client can leave it out, and it
//   can as well say where it is going.
// - Origin, when present, must be the emulator's own (http://127.0.0.1:PORT, http://localhost:PORT,
//   http://[::1]:PORT); "null" (sandboxed frames, file://) is foreign. Sec-Fetch-Site, which browsers
//   send on every request (even where they send no Origin: <img>, <script>, navigations), must be
//   same-origin or none (typed into the address bar). 403 otherwise. No CORS header is ever sent,
//   so a preflight from another origin is never approved.
//
// The control routes (/_emulator/…) then need a key the emulator was started with, as the Training
// and Inference APIs do, and take JSON only (415 for a body of another type).
//
// Each check is a function of the request that answers with the refusal, or undefined to go on.

import type { IncomingMessage } from 'node:http';
import { isIP } from 'node:net';

export interface Refusal {
  status: number;
  message: string;
  headers?: Record<string, string>;
}

/** The names (Host) and origins (Origin) under which this emulator is itself. */
export interface OwnNames {
  port: number;
  hosts: ReadonlySet<string>;
  origins: ReadonlySet<string>;
}

const LOOPBACK_NAMES = ['localhost', '127.0.0.1', '[::1]'];

/**
 * The loopback names, and the address the emulator listens on when it is an address (not a name,
 * which could be made to resolve elsewhere; not 0.0.0.0 or ::, which are not addresses to go to).
 */
export function ownNames(listenHost: string, port: number): OwnNames {
  const names = new Set(LOOPBACK_NAMES);
  const host = listenHost.toLowerCase();
  if (isIP(host) === 4 && host !== '0.0.0.0') names.add(host);
  if (isIP(host) === 6 && host !== '::') names.add(`[${host}]`);
  const withPort = (name: string) => (port === 80 ? [`${name}:80`, name] : [`${name}:${port}`]);
  const hosts = new Set([...names].flatMap(withPort));
  const origins = new Set([...names].map((name) => `http://${name}${port === 80 ? '' : `:${port}`}`));
  return { port, hosts, origins };
}

/** The request-target's authority when it is in absolute form (`GET http://host:port/path`). */
function absoluteAuthority(target: string | undefined): string | undefined {
  if (!target || target.startsWith('/') || target === '*') return undefined;
  try {
    return new URL(target).host;
  } catch {
    return target;
  }
}

/** DNS rebinding: a request addressed to another name (or port) is not for this emulator. */
export function refuseMisdirected(req: IncomingMessage, own: OwnNames): Refusal | undefined {
  const host = req.headers.host;
  if (!host) {
    return {
      status: 400,
      message: `A Host header is required: this emulator answers requests addressed to localhost, 127.0.0.1 or [::1] on port ${own.port}`,
    };
  }
  const authority = absoluteAuthority(req.url);
  const named = [host, ...(authority === undefined ? [] : [authority])];
  const foreign = named.find((name) => !own.hosts.has(name.toLowerCase()));
  if (foreign === undefined) return undefined;
  return {
    status: 421,
    message: `Misdirected request: ${foreign} is not this emulator, which answers requests addressed to localhost, 127.0.0.1 or [::1] on port ${own.port}`,
  };
}

/** A web page of another site: its Origin, or the browser's Sec-Fetch-Site where it sends no Origin. */
export function refuseCrossSite(req: IncomingMessage, own: OwnNames): Refusal | undefined {
  const origin = req.headers.origin;
  if (origin !== undefined && !own.origins.has(origin.toLowerCase())) {
    return {
      status: 403,
      message: `Cross-origin request refused: the emulator answers no web page but its own (Origin ${origin})`,
    };
  }
  const site = req.headers['sec-fetch-site'];
  if (site !== undefined && site !== 'same-origin' && site !== 'none') {
    return {
      status: 403,
      message: `Cross-site request refused: the emulator answers no web page but its own (Sec-Fetch-Site ${site})`,
    };
  }
  return undefined;
}

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
