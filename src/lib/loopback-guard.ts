// Who may talk to a server aip runs on loopback (the emulator, the trace gateway). A server on loopback
// that answers whatever a request's Host and Origin is can be driven by any web page open in the
// user's browser: a cross-site "simple" request (a form POST, fetch with text/plain) goes out without a
// preflight, and a DNS-rebinding name (a page's own host made to resolve to 127.0.0.1) makes the server
// same-origin with the page, which then reads the answers. So, before anything else:
//
// - Host must name the server: localhost, 127.0.0.1, [::1] (or the address it listens on), with its
//   own port. Anything else is 421; no Host at all (HTTP/1.0; node itself answers HTTP/1.1 without
//   one with 400) is 400: a browser always sends one, so only a local client can leave it out, and it
//   can as well say where it is going.
// - Origin, when present, must be the server's own (http://127.0.0.1:PORT, http://localhost:PORT,
//   http://[::1]:PORT); "null" (sandboxed frames, file://) is foreign. Sec-Fetch-Site, which browsers
//   send on every request (even where they send no Origin: <img>, <script>, navigations), must be
//   same-origin or none (typed into the address bar). 403 otherwise. No CORS header is ever sent,
//   so a preflight from another origin is never approved.

import type { IncomingMessage } from 'node:http';
import { isIP } from 'node:net';

export interface Refusal {
  status: number;
  message: string;
  headers?: Record<string, string>;
}

/** The names (Host) and origins (Origin) under which this server is itself. */
export interface OwnNames {
  port: number;
  /** What the server is, in its refusals: "emulator", "gateway". */
  label: string;
  hosts: ReadonlySet<string>;
  origins: ReadonlySet<string>;
}

const LOOPBACK_NAMES = ['localhost', '127.0.0.1', '[::1]'];

/**
 * The loopback names, and the address the server listens on when it is an address (not a name,
 * which could be made to resolve elsewhere; not 0.0.0.0 or ::, which are not addresses to go to).
 */
export function ownNames(listenHost: string, port: number, label = 'emulator'): OwnNames {
  const names = new Set(LOOPBACK_NAMES);
  const host = listenHost.toLowerCase();
  if (isIP(host) === 4 && host !== '0.0.0.0') names.add(host);
  if (isIP(host) === 6 && host !== '::') names.add(`[${host}]`);
  const withPort = (name: string) => (port === 80 ? [`${name}:80`, name] : [`${name}:${port}`]);
  const hosts = new Set([...names].flatMap(withPort));
  const origins = new Set([...names].map((name) => `http://${name}${port === 80 ? '' : `:${port}`}`));
  return { port, label, hosts, origins };
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

/** DNS rebinding: a request addressed to another name (or port) is not for this server. */
export function refuseMisdirected(req: IncomingMessage, own: OwnNames): Refusal | undefined {
  const host = req.headers.host;
  if (!host) {
    return {
      status: 400,
      message: `A Host header is required: this ${own.label} answers requests addressed to localhost, 127.0.0.1 or [::1] on port ${own.port}`,
    };
  }
  const authority = absoluteAuthority(req.url);
  const named = [host, ...(authority === undefined ? [] : [authority])];
  const foreign = named.find((name) => !own.hosts.has(name.toLowerCase()));
  if (foreign === undefined) return undefined;
  return {
    status: 421,
    message: `Misdirected request: ${foreign} is not this ${own.label}, which answers requests addressed to localhost, 127.0.0.1 or [::1] on port ${own.port}`,
  };
}

/** A web page of another site: its Origin, or the browser's Sec-Fetch-Site where it sends no Origin. */
export function refuseCrossSite(req: IncomingMessage, own: OwnNames): Refusal | undefined {
  const origin = req.headers.origin;
  if (origin !== undefined && !own.origins.has(origin.toLowerCase())) {
    return {
      status: 403,
      message: `Cross-origin request refused: the ${own.label} answers no web page but its own (Origin ${origin})`,
    };
  }
  const site = req.headers['sec-fetch-site'];
  if (site !== undefined && site !== 'same-origin' && site !== 'none') {
    return {
      status: 403,
      message: `Cross-site request refused: the ${own.label} answers no web page but its own (Sec-Fetch-Site ${site})`,
    };
  }
  return undefined;
}
