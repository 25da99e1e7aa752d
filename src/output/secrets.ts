// How API keys are shown (never) and where they may be sent (https, or http to this machine only).

import { UsageError } from '../errors/errors.js';

/**
 * A fingerprint that identifies a key without revealing it: the last four characters, and only for
 * keys long enough that four characters give nothing useful away.
 */
export function maskSecret(secret: string): string {
  return secret.length >= 16 ? `****${secret.slice(-4)}` : '****';
}

const secrets = new Set<string>();

/**
 * Every key the process holds is remembered here the moment it is read (settings, stdin, prompt), so
 * that whatever prints text (the IO object, error messages, the --debug log) can mask it.
 */
export function rememberSecret(secret: string | undefined): void {
  if (!secret || secret.length < 4) return;
  secrets.add(secret);
  // Trace ingest sends it as HTTP Basic credentials, base64("api:" + key), which anyone can decode:
  // a server that echoes its Authorization header back must not make aip print it.
  const basic = Buffer.from(`api:${secret}`).toString('base64');
  secrets.add(basic);
  secrets.add(basic.replace(/=+$/, ''));
}

/** Forgets every remembered key (tests: each run must find its key itself). */
export function forgetSecrets(): void {
  secrets.clear();
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

/** The text with every remembered key replaced by its fingerprint. */
export function redactSecrets(text: string): string {
  let result = text;
  for (const secret of secrets) {
    if (result.includes(secret)) result = result.split(secret).join(maskSecret(secret));
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
