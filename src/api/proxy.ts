// Which proxy a request goes through, from HTTPS_PROXY, HTTP_PROXY, ALL_PROXY and NO_PROXY (either
// case), as curl, gh, the openai SDKs and wandb read them; and the node:http(s) agent that goes there:
// http-proxy-agent for an http:// target (the proxy is sent the whole request), https-proxy-agent for an
// https:// one (a CONNECT tunnel: the proxy sees the host name, TLS runs end to end).
//
// A loopback target (127.0.0.0/8, ::1, localhost) never goes through a proxy, as in Go and so gh: the
// emulator keeps working in a shell whose HTTP_PROXY names a corporate proxy, which could not reach
// this machine's loopback anyway. Everything else follows proxy-from-env's rules: the scheme's own
// variable, else ALL_PROXY; NO_PROXY by exact host, suffix (`.corp`, `*.corp`), host:port, or `*`.
//
// The variables are read from the process's environment, as those tools read them, not the Context's:
// the transport under every client is given no Context (context.ts wraps it with the key guard and the
// log alone), so in-process tests set them in process.env. Nothing is loaded when none is set; then
// proxy-from-env when one is, and an agent only for a request that goes through a proxy.

import type { Agent, ClientRequest } from 'node:http';
import { NetworkError, UsageError } from '../errors/errors.js';
import {
  isLoopbackHost,
  maskProxyUrl,
  redactUrlSecrets,
  rememberProxyCredentials,
} from '../output/secrets.js';

export interface ProxyServer {
  url: URL;
  /** The variable that named it, as it is spelled in the environment (HTTPS_PROXY, https_proxy…). */
  variable: string;
}

/** Why a request goes straight to its server although a proxy variable is set. */
export type Bypass = 'loopback' | 'NO_PROXY' | 'unset';

/** A node:http(s) agent that goes through a proxy (proxy-agents.ts). */
export interface ProxyAgent extends Agent {
  /** While the connection to the proxy is being made for `req`, `signal` gives it up. */
  giveUpWith(req: ClientRequest, signal: AbortSignal): void;
}

export interface ProxyRoute {
  /** The proxy the request goes through, and the agent that goes there. */
  through?: ProxyServer & { agent: ProxyAgent };
  /** Straight to the server, though some proxy variable is set: why. */
  bypass?: Bypass;
}

/** No proxy variable is set: straight to the server, as if aip knew nothing of proxies. */
const UNPROXIED: ProxyRoute = Object.freeze({});

/**
 * Each pair as proxy-from-env reads it: the lower-case name first. A Map: the key is a URL's protocol,
 * which a user's --base-url chooses (`constructor:` must find nothing).
 */
const HTTP_VARIABLES = ['http_proxy', 'HTTP_PROXY'] as const;
const HTTPS_VARIABLES = ['https_proxy', 'HTTPS_PROXY'] as const;
const VARIABLES = new Map<string, readonly string[]>([
  ['http:', HTTP_VARIABLES],
  ['https:', HTTPS_VARIABLES],
]);
const FALLBACK = ['all_proxy', 'ALL_PROXY'] as const;
export const PROXY_VARIABLES = [...HTTPS_VARIABLES, ...HTTP_VARIABLES, ...FALLBACK];

/** The proxy variables set (non-empty) in the process's environment. */
export function proxyVariablesSet(): string[] {
  return PROXY_VARIABLES.filter((name) => process.env[name]);
}

function variableFor(protocol: string): { variable: string; value: string } | undefined {
  for (const variable of [...(VARIABLES.get(protocol) ?? []), ...FALLBACK]) {
    const value = process.env[variable];
    if (value) return { variable, value };
  }
  return undefined;
}

/** A proxy variable's value as a URL: `host:port` alone means http://, as curl and Go read it. */
function proxyUrl(variable: string, value: string): URL {
  let url: URL;
  try {
    url = new URL(value.includes('://') ? value : `http://${value}`);
  } catch {
    throw new UsageError(`${variable} is not a URL: ${redactUrlSecrets(value)}`, {
      hint: 'set it as http://host:port, with user:password@ before the host where the proxy asks for them',
    });
  }
  // Its password (or a user name alone, which some proxies take as a token) is a secret: masked in
  // every form aip or a proxy's answer could show it, the agent's Basic credentials included.
  rememberProxyCredentials(url);
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new UsageError(
      `${variable} names a ${url.protocol.slice(0, -1)} proxy (${maskProxyUrl(url)}): aip goes through http:// and https:// proxies only`,
    );
  return url;
}

/** One agent per proxy and target scheme, for the process: a tunnel's connection is used again. */
const agents = new Map<string, Promise<ProxyAgent>>();

function agentFor(proxy: URL, targetProtocol: string): Promise<ProxyAgent> {
  const key = `${targetProtocol} ${proxy.href}`;
  let agent = agents.get(key);
  if (!agent) {
    agent = import('./proxy-agents.js').then(({ createProxyAgent }) =>
      createProxyAgent(proxy, targetProtocol),
    );
    agents.set(key, agent);
  }
  return agent;
}

/**
 * How a request to `target` travels. A proxy variable that is not an http(s) URL is a usage error
 * (exit 2) for every request it would apply to: going around it would go around the user's proxy.
 */
export async function proxyRoute(target: string | URL): Promise<ProxyRoute> {
  if (proxyVariablesSet().length === 0) return UNPROXIED;
  const url = typeof target === 'string' ? new URL(target) : target;
  const named = variableFor(url.protocol);
  if (!named) return { bypass: 'unset' };
  if (isLoopbackHost(url.hostname)) return { bypass: 'loopback' };
  const proxy = proxyUrl(named.variable, named.value);
  const { getProxyForUrl } = await import('proxy-from-env');
  if (!getProxyForUrl(url.href)) return { bypass: 'NO_PROXY' };
  return { through: { url: proxy, variable: named.variable, agent: await agentFor(proxy, url.protocol) } };
}

/** A proxy as aip prints it: `http://alice:****@proxy.corp:3128 (HTTPS_PROXY)`. */
export function describeProxy(proxy: ProxyServer): string {
  return `${maskProxyUrl(proxy.url)} (${proxy.variable})`;
}

/** A route in a few words (doctor, --debug); undefined when no proxy variable is set at all. */
export function describeRoute(route: ProxyRoute, target: URL): string | undefined {
  if (route.through) return describeProxy(route.through);
  if (route.bypass === 'NO_PROXY') return 'none (bypassed by NO_PROXY)';
  if (route.bypass === 'loopback') return 'none (loopback: never proxied)';
  if (route.bypass === 'unset') return `none (${VARIABLES.get(target.protocol)?.[1] ?? 'ALL_PROXY'} not set)`;
  return undefined;
}

/**
 * A key may go through a proxy only inside a TLS tunnel. On plain http the proxy is sent the whole
 * request, the Authorization header with it. (A loopback target never goes through a proxy, so the
 * emulator's plain http is not concerned.)
 */
export function assertKeyMayGoThrough(target: URL, route: ProxyRoute): void {
  if (!route.through || target.protocol === 'https:') return;
  throw new UsageError(
    `refusing to send the API key over plain http to ${target.host} through the proxy ${describeProxy(route.through)}, which would read it: use an https:// URL`,
  );
}

/** The proxy answered instead of the server (exit 1, not retried: it would answer the same again). */
export class ProxyRefusedError extends NetworkError {
  override name = 'ProxyRefusedError';
}

/** The proxy answered instead of the server: it would not open the tunnel, or wants credentials. */
export function proxyRefused(
  proxy: ProxyServer,
  target: URL,
  status: number,
  statusText: string,
): ProxyRefusedError {
  const hint =
    status === 407
      ? `the proxy wants a user name and password: give them in ${proxy.variable}, as user:password@ before its host`
      : status === 403
        ? `the proxy does not let aip reach ${target.hostname}: ask its administrators, or name the host in NO_PROXY if it is reached without the proxy`
        : `the proxy could not reach ${target.hostname}`;
  return new ProxyRefusedError(
    `the proxy ${describeProxy(proxy)} answered ${`${status} ${statusText}`.trimEnd()} instead of connecting to ${target.host}`,
    { hint },
  );
}

/**
 * The proxy itself could not be reached or talked to (refused, DNS, closed before answering): the
 * request never reached the server. The code is kept, for the retry rules.
 */
export class ProxyConnectionError extends Error {
  override name = 'ProxyConnectionError';
  readonly code: string | undefined;

  constructor(proxy: ProxyServer, cause: NodeJS.ErrnoException) {
    super(`could not connect to the proxy ${describeProxy(proxy)} (${cause.code ?? cause.message})`, {
      cause,
    });
    this.code = cause.code;
  }
}
