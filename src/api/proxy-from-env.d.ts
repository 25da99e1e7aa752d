// proxy-from-env ships no types of its own; this is the one function aip uses (src/api/proxy.ts).
declare module 'proxy-from-env' {
  /** The proxy for `url` from *_PROXY and NO_PROXY in process.env, or '' for none. */
  export function getProxyForUrl(url: string | URL): string;
}
