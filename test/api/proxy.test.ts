// Which proxy a request goes through (src/api/proxy.ts), decided from the process's environment as
// the transport reads it: each test sets the variables it means and puts the environment back after.
// proxy-through.test.ts sends real requests through a real proxy; this is the decision alone.

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  assertKeyMayGoThrough,
  describeRoute,
  PROXY_VARIABLES,
  type ProxyRoute,
  proxyRoute,
} from '../../src/api/proxy.js';
import { UsageError } from '../../src/errors/errors.js';
import { maskProxyUrl, redactHeader } from '../../src/output/secrets.js';

const NAMES = [...PROXY_VARIABLES, 'no_proxy', 'NO_PROXY'];
let saved: Record<string, string | undefined>;

beforeEach(() => {
  saved = Object.fromEntries(NAMES.map((name) => [name, process.env[name]]));
  for (const name of NAMES) delete process.env[name];
});

afterEach(() => {
  for (const name of NAMES) {
    if (saved[name] === undefined) delete process.env[name];
    else process.env[name] = saved[name];
  }
});

/** The route to `url` with exactly these variables set, in words: `via <proxy> (<variable>)` or the bypass. */
async function route(url: string, variables: Record<string, string>): Promise<string> {
  Object.assign(process.env, variables);
  try {
    const decided = await proxyRoute(url);
    if (decided.through) return `via ${decided.through.url.href} (${decided.through.variable})`;
    return decided.bypass ?? 'no variables';
  } finally {
    for (const name of Object.keys(variables)) delete process.env[name];
  }
}

describe('which variable names the proxy', () => {
  it("the scheme's own, lower-case first (as proxy-from-env, curl), else ALL_PROXY", async () => {
    const https = 'https://api.training.example/v1';
    const http = 'http://api.training.example/v1';
    expect(await route(https, {})).toBe('no variables');
    expect(await route(https, { HTTPS_PROXY: 'http://upper:3128' })).toBe(
      'via http://upper:3128/ (HTTPS_PROXY)',
    );
    expect(await route(https, { https_proxy: 'http://lower:3128' })).toBe(
      'via http://lower:3128/ (https_proxy)',
    );
    expect(await route(https, { https_proxy: 'http://lower:3128', HTTPS_PROXY: 'http://upper:3128' })).toBe(
      'via http://lower:3128/ (https_proxy)',
    );
    expect(await route(http, { HTTP_PROXY: 'http://plain:3128', HTTPS_PROXY: 'http://tls:3128' })).toBe(
      'via http://plain:3128/ (HTTP_PROXY)',
    );
    expect(await route(https, { HTTP_PROXY: 'http://plain:3128' })).toBe('unset');
    expect(await route(https, { ALL_PROXY: 'http://all:3128' })).toBe('via http://all:3128/ (ALL_PROXY)');
    expect(await route(https, { all_proxy: 'http://all:3128', HTTPS_PROXY: 'http://tls:3128' })).toBe(
      'via http://tls:3128/ (HTTPS_PROXY)',
    );
  });

  it("a target's scheme that is a built-in property name finds no variable of its own", async () => {
    for (const scheme of ['constructor', 'hasownproperty', 'valueof', 'proto']) {
      expect(await route(`${scheme}://api.training.example/v1`, { HTTPS_PROXY: 'http://tls:3128' })).toBe(
        'unset',
      );
      expect(await route(`${scheme}://api.training.example/v1`, { ALL_PROXY: 'http://all:3128' })).toBe(
        'via http://all:3128/ (ALL_PROXY)',
      );
    }
  });

  it('a proxy given as host:port is http:// (as curl and Go read it); an https:// proxy is kept', async () => {
    const target = 'https://api.training.example/v1';
    expect(await route(target, { HTTPS_PROXY: 'proxy.corp:3128' })).toBe(
      'via http://proxy.corp:3128/ (HTTPS_PROXY)',
    );
    expect(await route(target, { HTTPS_PROXY: 'https://proxy.corp' })).toBe(
      'via https://proxy.corp/ (HTTPS_PROXY)',
    );
  });

  it('a value that is no http(s) URL is a usage error, its password masked', async () => {
    for (const [value, message] of [
      [
        'socks5://alice:hunter2-pass@socks.corp:1080',
        /^HTTPS_PROXY names a socks5 proxy \(socks5:\/\/alice:\*\*\*\*@socks\.corp:1080\)/,
      ],
      ['http://alice:hunter2-pass@[bad', /^HTTPS_PROXY is not a URL: http:\/\/alice:\*\*\*\*@\[bad$/],
    ] as const) {
      const error = await route('https://api.training.example', { HTTPS_PROXY: value }).catch(
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(UsageError);
      expect((error as Error).message).toMatch(message);
      expect((error as Error).message).not.toContain('hunter2');
    }
  });
});

describe('what goes straight to its server', () => {
  const proxy = { HTTPS_PROXY: 'http://proxy.corp:3128', HTTP_PROXY: 'http://proxy.corp:3128' };

  it('loopback targets, always (as Go and gh): the emulator behind a corporate proxy, with no NO_PROXY', async () => {
    for (const url of [
      'http://127.0.0.1:4010/training/v1',
      'http://localhost:4010',
      'https://[::1]:443',
      'http://127.9.9.9',
    ]) {
      expect([url, await route(url, proxy)]).toEqual([url, 'loopback']);
    }
    // Names that only resolve to loopback are not known to be loopback: they go through the proxy.
    expect(await route('http://emulator.localhost:4010', proxy)).toBe(
      'via http://proxy.corp:3128/ (HTTP_PROXY)',
    );
    // A malformed proxy variable does not stop the emulator either.
    expect(await route('http://127.0.0.1:4010', { HTTP_PROXY: 'socks5://x' })).toBe('loopback');
  });

  it('NO_PROXY: exact host, suffix, host:port, *, either case, lists with spaces', async () => {
    const target = 'https://api.training.example:8443/v1';
    const cases: Array<[string, string]> = [
      ['api.training.example', 'NO_PROXY'],
      ['training.example', 'via'], // not a suffix without its dot: an exact name
      ['.training.example', 'NO_PROXY'],
      ['*.example', 'NO_PROXY'],
      ['api.training.example:8443', 'NO_PROXY'],
      ['api.training.example:443', 'via'], // another port is another server
      ['*', 'NO_PROXY'],
      ['localhost, .corp ,  api.training.example', 'NO_PROXY'],
      ['other.example', 'via'],
    ];
    for (const [noProxy, expected] of cases) {
      for (const name of ['NO_PROXY', 'no_proxy']) {
        const decided = await route(target, { ...proxy, [name]: noProxy });
        expect([name, noProxy, decided.startsWith('via') ? 'via' : decided]).toEqual([
          name,
          noProxy,
          expected,
        ]);
      }
    }
  });
});

describe('how a route is shown', () => {
  it('the proxy with its password masked, or why there is none', async () => {
    const target = new URL('https://api.training.example/v1');
    Object.assign(process.env, { HTTPS_PROXY: 'http://alice:hunter2-pass@proxy.corp:3128' });
    expect(describeRoute(await proxyRoute(target), target)).toBe(
      'http://alice:****@proxy.corp:3128 (HTTPS_PROXY)',
    );
    const bypassed: Array<[ProxyRoute, string]> = [
      [{ bypass: 'NO_PROXY' }, 'none (bypassed by NO_PROXY)'],
      [{ bypass: 'loopback' }, 'none (loopback: never proxied)'],
      [{ bypass: 'unset' }, 'none (HTTPS_PROXY not set)'],
    ];
    for (const [decided, words] of bypassed) expect(describeRoute(decided, target)).toBe(words);
    expect(describeRoute({}, target)).toBeUndefined();
  });

  it('maskProxyUrl: the password, or a user name given alone (a token); never a path', () => {
    expect(maskProxyUrl(new URL('http://alice:p%40ss@proxy:3128/x'))).toBe('http://alice:****@proxy:3128');
    expect(maskProxyUrl(new URL('http://tok3n@proxy:3128'))).toBe('http://****@proxy:3128');
    expect(maskProxyUrl(new URL('https://proxy'))).toBe('https://proxy');
    expect(redactHeader('Proxy-Authorization', 'Basic YWxpY2U6aHVudGVyMi1wYXNzd29yZA==')).toBe('****ZA==');
  });
});

describe('a key and a proxy', () => {
  it('go together only inside TLS: plain http through a proxy is refused', async () => {
    process.env.HTTP_PROXY = 'http://alice:hunter2-pass@proxy.corp:3128';
    process.env.HTTPS_PROXY = process.env.HTTP_PROXY;
    const plain = new URL('http://api.training.example/v1');
    const tls = new URL('https://api.training.example/v1');
    const tunnelled = await proxyRoute(tls);
    expect(tunnelled.through?.variable).toBe('HTTPS_PROXY');
    expect(() => assertKeyMayGoThrough(tls, tunnelled)).not.toThrow();
    let refusal: unknown;
    try {
      assertKeyMayGoThrough(plain, await proxyRoute(plain));
    } catch (error) {
      refusal = error;
    }
    expect(refusal).toBeInstanceOf(UsageError);
    expect((refusal as Error).message).toBe(
      'refusing to send the API key over plain http to api.training.example through the proxy http://alice:****@proxy.corp:3128 (HTTP_PROXY), which would read it: use an https:// URL',
    );
  });
});
