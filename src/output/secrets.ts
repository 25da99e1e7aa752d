// How API keys are shown (never) and where they may be sent (https, or http to this machine only).

import { UsageError } from '../errors/errors.js';
import { sanitize } from './sanitize.js';

/**
 * A fingerprint that identifies a key without revealing it: the last four characters, and only for
 * keys long enough that four characters give nothing useful away.
 */
export function maskSecret(secret: string): string {
  return secret.length >= 16 ? `****${secret.slice(-4)}` : '****';
}

/** Every form of every remembered secret, and what stands for it in output (see rememberSecret). */
const secrets = new Map<string, string>();
/** The forms, longest first (a form that holds another is masked whole), made again when one is added. */
let longestFirst: [string, string][] | undefined;

/**
 * Every key the process holds is remembered here the moment it is read (settings, stdin, prompt), so
 * that whatever prints text (the IO object, error messages, the --debug log) can mask it: as it is, and
 * in every form aip derives from it or could print (secretForms), each shown as the key's fingerprint.
 */
export function rememberSecret(secret: string | undefined, shownAs?: string): void {
  if (!secret || secret.length < MIN_SECRET) return;
  const mask = shownAs ?? maskSecret(secret);
  for (const form of secretForms(secret)) {
    // A short derived form (a base64 run of a 4-character password) would mask unrelated text.
    if (form.length < (form === secret ? MIN_SECRET : MIN_FORM) || secrets.has(form)) continue;
    secrets.set(form, mask);
    longestFirst = undefined;
  }
}

/** Forgets every remembered key (tests: each run must find its key itself). */
export function forgetSecrets(): void {
  secrets.clear();
  longestFirst = undefined;
}

/** Shorter secrets are not remembered: masking three characters everywhere would mangle output. */
const MIN_SECRET = 4;
/** Nor derived forms shorter than this. */
const MIN_FORM = 6;

/**
 * The forms in which a secret can reach output, itself first. Each is something aip makes (trace
 * ingest's Basic credentials; a proxy's, which its agent encodes), or that a server echoing a request
 * could send back, or that `--jq` can make of a string that holds it (`@uri`, `@base64`, `@base32`,
 * `@html`, `@sh`, `@csv`, `@tsv`, `@json`), or that the terminal rendering makes (`^[` for ESC):
 *
 * - escaped: JSON, HTML, shell single quotes, CSV, TSV, and `cat -v` as aip's IO renders it;
 * - percent-encoded: encodeURIComponent, encodeURI, RFC 3986 strict (jq's @uri), form encoding
 *   (URLSearchParams: space as +), and the WHATWG URL's userinfo, path and query sets; each with its
 *   hex digits in upper and in lower case;
 * - base64, base64url and base32 of its UTF-8 bytes, whole (padded and not), and inside any longer
 *   text: what `user:key`, `api:key` or a JSON body holding the key encodes to depends on where the
 *   key starts within a 3-byte (5-byte for base32) group, so each offset's run of characters that the
 *   key's bytes alone decide is a form of its own.
 */
export function secretForms(secret: string): string[] {
  const forms = new Set<string>([secret]);
  const add = (make: () => string | undefined) => {
    try {
      const form = make();
      if (form) forms.add(form);
    } catch {
      // encodeURIComponent refuses a lone surrogate: no such form can be made, so none can be printed.
    }
  };
  add(() => sanitize(secret));
  add(() => JSON.stringify(secret).slice(1, -1));
  add(() => secret.replace(/[&<>'"]/g, (c) => HTML_ESCAPES.get(c)!));
  add(() => secret.replaceAll("'", "'\\''"));
  add(() => secret.replaceAll('"', '""'));
  add(() => secret.replace(/[\\\t\n\r]/g, (c) => TSV_ESCAPES.get(c)!));
  for (const encode of PERCENT_ENCODINGS) {
    add(() => encode(secret));
    add(() => encode(secret).replace(/%[0-9A-F]{2}/g, (hex) => hex.toLowerCase()));
  }
  const bytes = Buffer.from(secret, 'utf8');
  for (const whole of [bytes.toString('base64'), Buffer.from(`api:${secret}`).toString('base64')]) {
    add(() => whole);
    add(() => whole.replace(/=+$/, ''));
    add(() => whole.replace(/=+$/, '').replaceAll('+', '-').replaceAll('/', '_'));
  }
  // Each textual form encoded too: a JSON body that holds the key escaped, then base64-encoded.
  for (const text of [...forms]) {
    const utf8 = Buffer.from(text, 'utf8');
    for (const run of encodedRuns(utf8, 6, (b) => b.toString('base64'))) {
      add(() => run);
      add(() => run.replaceAll('+', '-').replaceAll('/', '_'));
    }
    for (const run of encodedRuns(utf8, 5, base32)) add(() => run);
  }
  return [...forms];
}

const HTML_ESCAPES = new Map([
  ['&', '&amp;'],
  ['<', '&lt;'],
  ['>', '&gt;'],
  ["'", '&#39;'],
  ['"', '&quot;'],
]);
const TSV_ESCAPES = new Map([
  ['\\', '\\\\'],
  ['\t', '\\t'],
  ['\n', '\\n'],
  ['\r', '\\r'],
]);

function urlPart(set: (url: URL, value: string) => void, get: (url: URL) => string): (s: string) => string {
  return (secret) => {
    const url = new URL('http://host/');
    set(url, secret);
    return get(url);
  };
}

const PERCENT_ENCODINGS: ((secret: string) => string)[] = [
  encodeURIComponent,
  encodeURI,
  (s) => encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`),
  (s) => new URLSearchParams([['k', s]]).toString().slice(2),
  urlPart(
    (url, s) => {
      url.password = s;
    },
    (url) => url.password,
  ),
  urlPart(
    (url, s) => {
      url.pathname = `/${s}`;
    },
    (url) => url.pathname.slice(1),
  ),
  urlPart(
    (url, s) => {
      url.search = `?${s}`;
    },
    (url) => url.search.slice(1),
  ),
];

/**
 * For each offset at which `bytes` can start within an encoding's group (3 bytes for base64, 5 for
 * base32), the characters of the encoding that depend on those bytes alone: what any text that holds
 * them encodes to holds these runs, whatever surrounds them.
 */
function encodedRuns(bytes: Buffer, bitsPerChar: 5 | 6, encode: (bytes: Buffer) => string): string[] {
  const group = bitsPerChar === 6 ? 3 : 5;
  const runs: string[] = [];
  for (let offset = 0; offset < group; offset++) {
    const padded = Buffer.concat([Buffer.alloc(offset), bytes, Buffer.alloc(group)]);
    const text = encode(padded);
    let first = -1;
    let last = -1;
    for (let i = 0; (i + 1) * bitsPerChar <= padded.length * 8; i++) {
      const from = Math.floor((i * bitsPerChar) / 8);
      const to = Math.floor(((i + 1) * bitsPerChar - 1) / 8);
      if (from < offset || to >= offset + bytes.length) continue;
      if (first < 0) first = i;
      last = i;
    }
    if (first >= 0) runs.push(text.slice(first, last + 1));
  }
  return runs;
}

const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

/** RFC 4648 base32, unpadded (jq's @base32 pads; the runs above never reach the padding). */
export function base32(bytes: Uint8Array): string {
  let out = '';
  let bits = 0;
  let value = 0;
  for (const byte of bytes) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += BASE32[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
    value &= (1 << bits) - 1;
  }
  if (bits > 0) out += BASE32[(value << (5 - bits)) & 31];
  return out;
}

/**
 * A proxy's credentials, from its URL (`http://user:password@proxy:3128`), remembered as secrets: the
 * password (as written, percent-encoded, and decoded, as the proxy agent sends it), or the user name
 * when there is no password (some proxies take a token there), and the `Proxy-Authorization: Basic`
 * value the agent makes of them. Shown as `****`, as maskProxyUrl shows them.
 */
export function rememberProxyCredentials(url: URL): void {
  const decode = (part: string) => {
    try {
      return decodeURIComponent(part);
    } catch {
      return part;
    }
  };
  const secret = url.password || url.username;
  if (!secret) return;
  for (const form of new Set([secret, decode(secret)])) rememberSecret(form, '****');
  const basic = Buffer.from(`${decode(url.username)}:${decode(url.password)}`).toString('base64');
  rememberSecret(basic, '****');
  rememberSecret(basic.replace(/=+$/, ''), '****');
}

/** The password of a URL's userinfo (`https://user:secret@host`): the user name is kept, to be recognised. */
const URL_USERINFO = /\b([a-z][a-z0-9+.-]*:\/\/[^\s/:@?#]*):([^\s/@?#]+)@/gi;
/**
 * Query parameters that carry credentials by name (`?api_key=…`, `&token=…`, signed URLs' signatures):
 * their values; other parameters (`after=`, `limit=`) stay readable.
 */
const URL_SECRET_PARAM =
  /([?&](?:api[_-]?key|key|token|access[_-]?token|id[_-]?token|auth|password|passwd|pwd|secret|client[_-]?secret|sig|signature|x-amz-signature|x-amz-credential|x-goog-signature|x-goog-credential)=)([^&#\s"']+)/gi;

/**
 * Secrets in URLs, wherever a URL appears in a message (stderr): an argument echoed in a usage error,
 * a setting, a request line of --debug. Masked like keys, though no key was read; results on stdout
 * (a model's reply that quotes a URL, say) are the data asked for and stay as they are.
 */
export function redactUrlSecrets(text: string): string {
  if (!text.includes('://') && !text.includes('=')) return text;
  return text.replace(URL_USERINFO, '$1:****@').replace(URL_SECRET_PARAM, '$1****');
}

/**
 * A proxy's address fit to print (doctor, --debug, errors): its password masked, and a user name with
 * no password too, as some proxies take a token there (`http://alice:****@proxy:3128`, `http://****@proxy`).
 * Only the origin: a proxy's URL has no use for a path.
 */
export function maskProxyUrl(url: URL): string {
  const credentials = url.password ? `${url.username}:****@` : url.username ? '****@' : '';
  return `${url.protocol}//${credentials}${url.host}`;
}

/** The text with every remembered key, in every form (secretForms), replaced by its fingerprint. */
export function redactSecrets(text: string): string {
  if (secrets.size === 0) return text;
  longestFirst ??= [...secrets].sort((a, b) => b[0].length - a[0].length);
  let result = text;
  for (const [form, mask] of longestFirst) {
    if (result.includes(form)) result = result.split(form).join(mask);
  }
  return result;
}

/**
 * 127.0.0.0/8, ::1 and the literal name localhost: traffic that never leaves the machine. Other names
 * (even *.localhost) go through a resolver, which could answer with any address.
 */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  return host === 'localhost' || host === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

/**
 * What an HTTP header value cannot hold, as Node's http decides it (its checkInvalidHeaderChar: a tab,
 * printable ASCII and the bytes 0x80–0xFF pass) and so fetch's Headers too (no CR, LF or NUL; nothing
 * above U+00FF, which is not a byte).
 */
const NOT_IN_HEADER = /[^\t\x20-\x7e\x80-\xff]/;

const CHARACTER_NAMES = new Map<number, string>([
  [0x0, 'a NUL'],
  [0xa, 'a line feed'],
  [0xd, 'a carriage return'],
  [0x7f, 'a DEL'],
]);

/**
 * Why `key` cannot be sent in a header ("a line feed (U+000A) at character 41"), without a character
 * of it; undefined when it can.
 */
export function unsendableKey(key: string): string | undefined {
  const found = NOT_IN_HEADER.exec(key);
  if (!found) return undefined;
  const code = key.codePointAt(found.index)!;
  const hex = `U+${code.toString(16).toUpperCase().padStart(4, '0')}`;
  const what =
    CHARACTER_NAMES.get(code) ?? (code < 0xa0 ? 'a control character' : 'a character beyond Latin-1');
  return `${what} (${hex}) at character ${[...key.slice(0, found.index)].length + 1}`;
}

/**
 * Refuses, before anything is sent, a key that no HTTP header can carry (a line feed pasted into it,
 * say): Node's http would throw on every request, and that would be retried as a network error. A
 * usage error (exit 2): the setting is invalid, and nothing was sent. `source` names where the key came
 * from, as settings name it ("env AIP_API_KEY", "config profile default", "stdin").
 */
export function assertKeySendable(key: string, source: string): void {
  const problem = unsendableKey(key);
  if (!problem) return;
  const fix = source.startsWith('env ')
    ? `set ${source.slice(4)} again without it`
    : source.startsWith('config ') || source.startsWith('keychain ')
      ? "store it again with 'aip auth login'"
      : 'give the key without it';
  throw new UsageError(
    `the API key from ${source} cannot be sent: it holds ${problem}, which an HTTP header cannot carry; ${fix}`,
  );
}

/** Throws unless a key may travel to this URL: https anywhere, plain http to loopback only. */
export function assertKeyMayBeSentTo(url: string | URL): void {
  const parsed = typeof url === 'string' ? new URL(url) : url;
  if (parsed.protocol === 'https:') return;
  if (parsed.protocol === 'http:' && isLoopbackHost(parsed.hostname)) return;
  throw new UsageError(
    `refusing to send the API key over plain ${parsed.protocol.replace(':', '')} to ${parsed.host}: use an https:// URL (plain http is allowed only for loopback addresses such as the emulator)`,
  );
}

const CREDENTIAL_HEADERS = new Set([
  'authorization',
  'proxy-authorization',
  'wandb-api-key',
  'api-key',
  'x-api-key',
  'cookie',
]);

/** A header value fit to log or record: credentials reduced to their fingerprint. */
export function redactHeader(name: string, value: string): string {
  const lower = name.toLowerCase();
  if (!CREDENTIAL_HEADERS.has(lower)) return value;
  const space = value.indexOf(' ');
  if (lower === 'authorization' && space > 0)
    return `${value.slice(0, space)} ${maskSecret(value.slice(space + 1))}`;
  return maskSecret(value);
}
