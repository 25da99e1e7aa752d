// Secrets refused early when they cannot be sent, and masked in every form aip derives from them
// (issue 28). A key no HTTP header can carry (a CR or LF in it, any character Node's http refuses) is
// refused before any request, in one line, exit 2, wherever it comes from; and a key with reserved
// characters stays masked when a server echoes it back percent-encoded, in base64 or base64url (as
// `Basic user:key`), or when --jq could encode it, as a proxy's credentials do.

import { validateHeaderValue } from 'node:http';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { proxyRoute } from '../../src/api/proxy.js';
import {
  assertKeySendable,
  base32,
  forgetSecrets,
  redactSecrets,
  rememberSecret,
  secretForms,
  unsendableKey,
} from '../../src/output/secrets.js';
import { runCli, tempConfigDir } from '../helpers/cli.js';
import { useEmulator } from '../helpers/emulator.js';

const { emu, env } = useEmulator();

/** Whether Node's own http takes `value` as a header value: the oracle for unsendableKey. */
function nodeTakes(value: string): boolean {
  try {
    validateHeaderValue('authorization', value);
    return true;
  } catch {
    return false;
  }
}

/**
 * Characters a key must not hold, one of each kind: the line breaks, NUL and the other C0 controls, DEL,
 * Unicode's own separators, a character beyond Latin-1, one beyond the BMP (a surrogate pair), a lone
 * surrogate, a BOM. (The C1 controls, U+0080–U+009F, are bytes a header carries, as Node sends them.)
 */
const UNSENDABLE = [
  '\n',
  '\r',
  '\r\n',
  '\0',
  '\u0001',
  '\u001b',
  '\u007f',
  '\u2028',
  '\u2029',
  '€',
  '😀',
  '\ud800',
  '\ufeff',
  'ā',
  '\u000b',
];

describe('a key no HTTP header can carry', () => {
  it('is told apart exactly as Node http tells it, for every UTF-16 code unit', () => {
    for (let code = 0; code <= 0xffff; code++) {
      const key = `abcd${String.fromCharCode(code)}efgh`;
      expect(unsendableKey(key) === undefined, `U+${code.toString(16)}`).toBe(nodeTakes(key));
    }
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 40 }), (key) => {
        expect(unsendableKey(key) === undefined).toBe(nodeTakes(key));
      }),
    );
  });

  it('is refused in one line that names the character, never the key', () => {
    expect(() => assertKeySendable('abc\ndefghijklmnopq', 'env AIP_API_KEY')).toThrow(
      'the API key from env AIP_API_KEY cannot be sent: it holds a line feed (U+000A) at character 4, which an HTTP header cannot carry; set AIP_API_KEY again without it',
    );
    for (const bad of UNSENDABLE) {
      try {
        assertKeySendable(`secret-part-${bad}-tail`, 'config profile default');
        expect.unreachable(JSON.stringify(bad));
      } catch (error) {
        const message = (error as Error).message;
        expect(message).not.toMatch(/secret-part|tail/);
        expect(message).not.toMatch(/[\n\r]/);
        expect(message).toContain("store it again with 'aip auth login'");
      }
    }
  });

  const sources: { name: string; source: RegExp; env?: (key: string) => Record<string, string> }[] = [
    { name: 'AIP_API_KEY', source: /from env AIP_API_KEY/, env: (key) => ({ AIP_API_KEY: key }) },
    { name: 'WANDB_API_KEY', source: /from env WANDB_API_KEY/, env: (key) => ({ WANDB_API_KEY: key }) },
    { name: 'the config file', source: /from config profile default/ },
    { name: 'auth login', source: /from stdin/ },
  ];
  for (const { name, source, env: keyEnv } of sources) {
    it(`is refused before any request, exit 2, from ${name} (${UNSENDABLE.length} characters)`, async () => {
      for (const bad of UNSENDABLE) {
        const key = `prefix-${bad}-0123456789abcdef`;
        const { AIP_API_KEY: _key, ...urls } = env;
        const configDir = tempConfigDir();
        let argv = ['auth', 'status'];
        let stdin: string | undefined;
        if (name === 'the config file') {
          const { writeFileSync } = await import('node:fs');
          writeFileSync(
            `${configDir}/config.json`,
            JSON.stringify({ profiles: { default: { 'api-key': key } } }),
            { mode: 0o600 },
          );
        } else if (name === 'auth login') {
          argv = ['auth', 'login', '--with-key'];
          // Line breaks end a line of stdin (and "more than one word" is said of them); the rest here.
          if (/[\s\u0085\u2028\u2029\ufeff]/.test(bad)) continue;
          stdin = key;
        }
        const before = (await emu.requests()).length;
        const r = await runCli(argv, {
          env: { ...urls, AIP_CONFIG_DIR: configDir, ...keyEnv?.(key) },
          stdin,
        });
        const what = `${name}, ${JSON.stringify(bad)}`;
        expect(r.code, `${what}: ${r.stderr}`).toBe(2);
        expect(r.stderr, what).toMatch(source);
        expect(r.stderr, what).toMatch(/^error: the API key from .* cannot be sent: it holds .*\n$/);
        expect(r.sleeps, what).toEqual([]);
        expect((await emu.requests()).length, what).toBe(before);
      }
    });
  }

  it('and a key with reserved characters that a header can carry is still sent', async () => {
    const r = await runCli(['auth', 'status'], { env: { ...env, AIP_API_KEY: 'k/+=&?#% "é-0123456789' } });
    // The emulator does not know it: the server's answer (4), not a refusal of aip's (2).
    expect(r.code).toBe(4);
    expect(r.stderr).toContain('the key is rejected');
  });
});

/** A key with every reserved character a header can carry, and one beyond ASCII. */
const KEY = 'aip-k3y/+=&?#%:@ "\'<>\\~!*()[]{}|^`$;,é-0123456789abcdef';

/** The forms of KEY a server could echo back, made with Node's own encoders (not aip's). */
function echoedForms(key: string): Record<string, string> {
  const b64 = (text: string) => Buffer.from(text).toString('base64');
  const url = new URL('http://host/');
  url.password = key;
  return {
    raw: key,
    encodeURIComponent: encodeURIComponent(key),
    encodeURI: encodeURI(key),
    'lower-case hex': encodeURIComponent(key).replace(/%[0-9A-F]{2}/g, (h) => h.toLowerCase()),
    'form-urlencoded': new URLSearchParams({ k: key }).toString().slice(2),
    'URL userinfo': url.password,
    base64: b64(key),
    base64url: Buffer.from(key).toString('base64url'),
    'Basic api:key': b64(`api:${key}`),
    'Basic user:key': b64(`someone:${key}`),
    'Basic longer-user:key': b64(`someone-else:${key}`),
    'base64 of a JSON body': b64(JSON.stringify({ api_key: key })),
    'base64url of a JSON body': Buffer.from(JSON.stringify({ key })).toString('base64url'),
    JSON: JSON.stringify(key).slice(1, -1),
  };
}

describe('a key in every form aip derives or could print', () => {
  afterEach(() => forgetSecrets());

  /** Every run of base64 (or base64url) characters in `text`, decoded at each of its four offsets. */
  function decodedRuns(text: string): string[] {
    const out: string[] = [];
    for (const run of text.match(/[A-Za-z0-9+/_-]{4,}/g) ?? []) {
      for (let shift = 0; shift < 4; shift++) {
        const part = run.slice(shift).replaceAll('-', '+').replaceAll('_', '/');
        out.push(Buffer.from(part.slice(0, part.length - (part.length % 4)), 'base64').toString('latin1'));
      }
    }
    return out;
  }

  it('never shows any form of a remembered key: property, with any prefix and suffix', () => {
    fc.assert(
      fc.property(
        // Keys as long as real ones (16+), without '*' (the mask's own character).
        fc.string({ unit: 'grapheme', minLength: 16, maxLength: 48 }).filter((k) => !k.includes('*')),
        fc.string({ maxLength: 12 }),
        fc.string({ maxLength: 12 }),
        (key, before, after) => {
          forgetSecrets();
          rememberSecret(key);
          const utf8 = Buffer.from(key).toString('latin1');
          for (const [form, made] of Object.entries(echoedForms(key))) {
            const text = redactSecrets(`${before}${made}${after}`);
            expect(text, form).not.toContain(made);
            // Nothing of the key decodes from what is left, whatever preceded it in the encoding.
            for (const decoded of decodedRuns(text)) expect(decoded, form).not.toContain(utf8);
          }
          // Wrapped in other text and base64-encoded whole, at any offset.
          const wrapped = Buffer.from(`${before}${key}${after}`).toString('base64');
          for (const decoded of decodedRuns(redactSecrets(wrapped))) expect(decoded).not.toContain(utf8);
        },
      ),
    );
  });

  it('base32 is RFC 4648 (the test vectors), as jq @base32 makes it', () => {
    const vectors: [string, string][] = [
      ['', ''],
      ['f', 'MY'],
      ['fo', 'MZXQ'],
      ['foo', 'MZXW6'],
      ['foob', 'MZXW6YQ'],
      ['fooba', 'MZXW6YTB'],
      ['foobar', 'MZXW6YTBOI'],
    ];
    for (const [text, encoded] of vectors) expect(base32(Buffer.from(text))).toBe(encoded);
    rememberSecret(KEY);
    expect(redactSecrets(`x${base32(Buffer.from(`ab${KEY}cd`))}y`)).toContain('****cdef');
  });

  it('names the forms it masks: escaped for JSON, HTML, the shell, CSV, TSV and the terminal', () => {
    const forms = secretForms('a"b<c\'d\te\u001bf-0123456789');
    expect(forms).toContain('a\\"b<c\'d\\te\\u001bf-0123456789');
    expect(forms).toContain('a&quot;b&lt;c&#39;d\te\u001bf-0123456789');
    expect(forms).toContain("a\"b<c'\\''d\te\u001bf-0123456789");
    expect(forms).toContain('a""b<c\'d\te\u001bf-0123456789');
    expect(forms).toContain('a"b<c\'d\\te\u001bf-0123456789');
    expect(forms).toContain('a"b<c\'d\te^[f-0123456789');
  });

  it('a server that echoes the key back in any form: masked in every output mode', async () => {
    const forms = echoedForms(KEY);
    const detail = Object.entries(forms)
      .map(([name, form]) => `${name}=[${form}]`)
      .join(' ');
    const commands = [
      ['auth', 'status'],
      ['models', 'list'],
      ['traces', 'span', '--name', 'x'],
    ];
    const modes = [[], ['--json'], ['--debug']];
    let runs = 0;
    for (const status of [500, 403, 400]) {
      await emu.control('DELETE', '/faults');
      await emu.fault({ path: '/**', status, times: 1000, body: { detail, error: { message: detail } } });
      for (const argv of commands)
        for (const flags of modes) {
          forgetSecrets();
          const r = await runCli([...flags, '--max-retries', '0', ...argv], {
            env: { ...env, AIP_API_KEY: KEY },
          });
          const out = r.stdout + r.stderr;
          expect(out, argv.join(' ')).toContain('****cdef');
          for (const [name, form] of Object.entries(forms))
            expect(out, `${name} in ${[...flags, ...argv].join(' ')} (${status})`).not.toContain(form);
          runs++;
        }
    }
    expect(runs).toBe(27);
    await emu.control('DELETE', '/faults');
  });
});

describe("a proxy's credentials", () => {
  const saved = { ...process.env };
  afterEach(() => {
    for (const name of ['HTTPS_PROXY', 'https_proxy']) {
      if (saved[name] === undefined) delete process.env[name];
      else process.env[name] = saved[name];
    }
    forgetSecrets();
  });

  it('are masked as written, decoded, and as the Basic credentials the agent makes of them', async () => {
    const cases: [string, string, string][] = [
      ['alice', 'p@ss:w/rd+more-0123', 'http://alice:p%40ss%3Aw%2Frd%2Bmore-0123@proxy.corp:3128'],
      ['', 'tok-3n/with+reserved', 'http://tok-3n%2Fwith%2Breserved@proxy.corp:3128'],
      ['bob', 'plain-password-9876', 'https://bob:plain-password-9876@proxy.corp'],
    ];
    for (const [user, password, proxy] of cases) {
      forgetSecrets();
      process.env.HTTPS_PROXY = proxy;
      const route = await proxyRoute('https://api.example.com/v1');
      expect(route.through).toBeDefined();
      const written = new URL(proxy);
      const secret = user ? password : decodeURIComponent(written.username);
      const basic = Buffer.from(user ? `${user}:${password}` : `${secret}:`).toString('base64');
      const shown = [
        secret,
        user ? written.password : written.username,
        encodeURIComponent(secret),
        basic,
        basic.replace(/=+$/, ''),
        Buffer.from(secret).toString('base64'),
      ];
      for (const form of shown) {
        const text = redactSecrets(`407: Proxy-Authorization: Basic ${form} (${form})`);
        expect(text, `${proxy}: ${form}`).not.toContain(form);
      }
    }
  });
});
