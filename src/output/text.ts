import { redactSecrets } from './secrets.js';

/**
 * Text from elsewhere (a server's message, a body) made safe to show: keys masked first, so that a cut
 * can never leave part of one, then folded onto one line and cut to `max` characters.
 */
export function oneLine(text: string, max = 300): string {
  const flat = redactSecrets(text).replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/** The same for multi-line text in logs: keys masked, then cut. */
export function truncate(text: string, max: number): string {
  const safe = redactSecrets(text);
  return safe.length > max ? `${safe.slice(0, max)}… (${safe.length} chars)` : safe;
}
