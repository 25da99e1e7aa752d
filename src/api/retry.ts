// When to retry and how long to wait (product.md §5): idempotent requests retry on connection errors,
// 408, 429 and 5xx, with jittered exponential backoff, honouring the server's Retry-After.

export const INITIAL_BACKOFF_MS = 500;
export const MAX_BACKOFF_MS = 8_000;
/** A Retry-After longer than this is not waited out: the error is reported with the server's delay. */
export const MAX_RETRY_AFTER_MS = 60_000;

export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 429 || status >= 500;
}

export function isIdempotent(method: string): boolean {
  return (
    method === 'GET' || method === 'HEAD' || method === 'DELETE' || method === 'PUT' || method === 'OPTIONS'
  );
}

/** Exponential backoff with up to 25% jitter taken off, so that clients retrying together spread out. */
export function backoffDelay(retry: number, random: () => number): number {
  const base = Math.min(MAX_BACKOFF_MS, INITIAL_BACKOFF_MS * 2 ** retry);
  return Math.round(base * (1 - 0.25 * random()));
}

/** The server's requested delay in ms, from `retry-after-ms`, or `retry-after` in seconds or as a date. */
export function retryAfterMs(headers: Record<string, string>, now: number = Date.now()): number | undefined {
  const ms = headers['retry-after-ms'];
  if (ms !== undefined && /^\d+(\.\d+)?$/.test(ms.trim())) return Math.ceil(Number(ms));
  const value = headers['retry-after']?.trim();
  if (!value) return undefined;
  if (/^\d+(\.\d+)?$/.test(value)) return Math.ceil(Number(value) * 1000);
  const date = Date.parse(value);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - now);
}

/**
 * The longest pause before a retry, whoever asks for it: --timeout bounds every wait (each attempt, each
 * pause), and no pause is longer than MAX_RETRY_AFTER_MS whatever --timeout says.
 */
export function maxPauseMs(timeoutMs: number): number {
  return Math.max(0, Math.min(MAX_RETRY_AFTER_MS, timeoutMs));
}

/** Why a server's Retry-After was not waited out: "the server asks to retry after 60s, beyond --timeout (20s)". */
export function retryAfterRefused(askedMs: number, timeoutMs: number): string {
  const asked = `the server asks to retry after ${Math.ceil(askedMs / 1000)}s`;
  return askedMs <= MAX_RETRY_AFTER_MS && askedMs > timeoutMs
    ? `${asked}, beyond --timeout (${timeoutMs / 1000}s): not waited`
    : asked;
}
