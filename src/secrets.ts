// How API keys are shown (never) and where they may be sent (https, or http to this machine only).

import { UsageError } from './errors.js';

/**
 * A fingerprint that identifies a key without revealing it: the last four characters, and only for
 * keys long enough that four characters give nothing useful away.
 */
export function maskSecret(secret: string): string {
  return secret.length >= 16 ? `****${secret.slice(-4)}` : '****';
}

/** 127.0.0.0/8, ::1 and localhost: traffic that never leaves the machine. */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  if (host === '::1' || host === '0:0:0:0:0:0:0:1') return true;
  if (/^::ffff:127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host)) return true;
  return /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
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
