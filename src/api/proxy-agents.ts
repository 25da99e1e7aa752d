// The node:http(s) agents that go through a proxy, loaded only when a request does (proxy.ts):
// https-proxy-agent for an https:// target (a CONNECT tunnel), http-proxy-agent for an http:// one (the
// request sent whole). Kept alive: a command of many requests opens one tunnel per host, not one per
// request; idle connections never keep the process alive (node:http unrefs them).
//
// One thing is added: a request given up (--timeout, Ctrl-C) while its connection to the proxy is still
// being made, or is waiting for the CONNECT's answer, closes that connection. The libraries keep it
// open until the proxy answers, and a proxy that never does would keep aip running after the command
// had ended. Both open it synchronously at the start of connect(), from this.connectOpts, which is why
// the signal is put there for exactly that call; once the proxy has answered it is let go, as a
// kept-alive tunnel outlives its first request.

import type { ClientRequest } from 'node:http';
import { HttpProxyAgent } from 'http-proxy-agent';
import { HttpsProxyAgent } from 'https-proxy-agent';
import type { ProxyAgent } from './proxy.js';

const givenUpWith = new WeakMap<ClientRequest, AbortSignal>();

/** `connect()` with the request's signal on the socket to the proxy until it is made. */
async function connectUnlessGivenUp<T>(
  agent: { connectOpts: { signal?: AbortSignal } },
  req: ClientRequest,
  connect: () => Promise<T>,
): Promise<T> {
  const signal = givenUpWith.get(req);
  if (!signal) return connect();
  const connecting = new AbortController();
  const giveUp = () => connecting.abort(signal.reason);
  if (signal.aborted) giveUp();
  else signal.addEventListener('abort', giveUp, { once: true });
  const own = agent.connectOpts;
  agent.connectOpts = { ...own, signal: connecting.signal };
  let connected: Promise<T>;
  try {
    connected = connect();
  } finally {
    agent.connectOpts = own;
  }
  try {
    return await connected;
  } finally {
    signal.removeEventListener('abort', giveUp);
  }
}

class TunnellingAgent extends HttpsProxyAgent<string> implements ProxyAgent {
  giveUpWith(req: ClientRequest, signal: AbortSignal): void {
    givenUpWith.set(req, signal);
  }

  override connect(...[req, opts]: Parameters<HttpsProxyAgent<string>['connect']>) {
    return connectUnlessGivenUp(this, req, () => super.connect(req, opts));
  }
}

class ForwardingAgent extends HttpProxyAgent<string> implements ProxyAgent {
  giveUpWith(req: ClientRequest, signal: AbortSignal): void {
    givenUpWith.set(req, signal);
  }

  override connect(...[req, opts]: Parameters<HttpProxyAgent<string>['connect']>) {
    return connectUnlessGivenUp(this, req, () => super.connect(req, opts));
  }
}

/** The agent for requests to `targetProtocol` URLs through `proxy`. */
export function createProxyAgent(proxy: URL, targetProtocol: string): ProxyAgent {
  return targetProtocol === 'https:'
    ? new TunnellingAgent(proxy, { keepAlive: true })
    : new ForwardingAgent(proxy, { keepAlive: true });
}
