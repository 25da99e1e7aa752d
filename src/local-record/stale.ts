// A name this machine remembers (models.json, jobs.json) for an id the server no longer knows: an
// emulator that restarted, a model deleted from elsewhere. The server's bare 404 would leave the user
// guessing why a name that resolves is "not found"; this says which record is stale and how to drop it.

import { ApiError } from '../errors/errors.js';

/** A 404 answered for a request made with an id from the local record. */
export function isNotFound(error: unknown): error is ApiError {
  return error instanceof ApiError && error.status === 404;
}

/**
 * "model team/project/name (id …) no longer exists on URL (HTTP 404, request id …)", exit 3 as the
 * 404 it stands for; `hint` says what to do (forget the name, or that it was forgotten).
 */
export function staleError(what: string, baseUrl: string, cause: ApiError, hint: string): ApiError {
  const error = new ApiError(
    `${what} no longer exists on ${baseUrl} (HTTP 404${cause.requestId ? `, request id ${cause.requestId}` : ''})`,
    404,
    cause.requestId,
    { hint },
  );
  error.attempts = cause.attempts;
  error.cause = cause;
  return error;
}

/** The words that name `ref` as an argument: after --, when it could be read as an option. */
export function argumentWords(ref: string): string[] {
  return ref.startsWith('-') ? ['--', ref] : [ref];
}
