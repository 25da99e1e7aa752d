// Turns an HTTP error answer into an ApiError with a one-line message. Both body shapes of the
// platform are understood: FastAPI's {"detail": "…" | [{loc, msg, type}]} (Training API) and the
// OpenAI envelope {"error": {"message", "type", "code"}} (Inference API); anything else (an HTML page
// from a proxy, say) is reduced to its status line.

import { ApiError, AUTH_HINT } from '../errors/errors.js';
import { isObject } from '../lib/json.js';
import { oneLine } from '../output/text.js';

export interface ValidationItem {
  loc: Array<string | number>;
  msg: string;
}

export interface ErrorBody {
  message: string | undefined;
  validation: ValidationItem[];
}

function validationItems(list: unknown[]): ValidationItem[] {
  return list.filter(isObject).map((item) => ({
    loc: Array.isArray(item.loc)
      ? item.loc.filter((x) => typeof x === 'string' || typeof x === 'number')
      : [],
    msg: typeof item.msg === 'string' ? item.msg : JSON.stringify(item),
  }));
}

export function parseErrorBody(text: string, contentType: string | undefined): ErrorBody {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    // Not JSON: keep plain text (short, single line); drop markup, which is never a useful message.
    const looksLikeMarkup = /html|xml/i.test(contentType ?? '') || /^\s*</.test(text);
    return { message: !looksLikeMarkup && text.trim() ? oneLine(text) : undefined, validation: [] };
  }
  if (!isObject(body))
    return { message: typeof body === 'string' ? oneLine(body) : undefined, validation: [] };
  const { detail, error } = body;
  if (Array.isArray(detail)) return { message: undefined, validation: validationItems(detail) };
  if (typeof detail === 'string') return { message: oneLine(detail), validation: [] };
  if (isObject(detail) && typeof detail.message === 'string')
    return { message: oneLine(detail.message), validation: [] };
  if (isObject(error)) {
    const message = typeof error.message === 'string' ? error.message : undefined;
    return { message: message ? oneLine(message) : undefined, validation: [] };
  }
  if (typeof error === 'string') return { message: oneLine(error), validation: [] };
  if (typeof body.message === 'string') return { message: oneLine(body.message), validation: [] };
  return { message: undefined, validation: [] };
}

/** FastAPI's loc as a path: ["body","groups",0,"reward"] → "groups[0].reward". */
export function formatLoc(loc: Array<string | number>): string {
  const parts = loc[0] === 'body' ? loc.slice(1) : loc;
  let out = '';
  for (const part of parts) out += typeof part === 'number' ? `[${part}]` : out ? `.${part}` : part;
  return out || '(request)';
}

export interface FailedExchange {
  service: string;
  method: string;
  url: string;
  status: number;
  statusText: string;
  text: string;
  contentType: string | undefined;
  requestId: string | undefined;
  /** Extra words for the end of the message, e.g. why no retry was made. */
  note?: string;
}

export function apiErrorFrom(x: FailedExchange): ApiError {
  const body = parseErrorBody(x.text, x.contentType);
  const where = `HTTP ${x.status} from ${x.method} ${new URL(x.url).pathname}${x.requestId ? `, request id ${x.requestId}` : ''}`;
  const details = body.validation.map((v) => `${formatLoc(v.loc)}: ${v.msg}`);
  let what = body.message ?? (x.statusText || 'request failed');
  if (x.status === 422 && details.length > 0 && !body.message) {
    what = `the ${x.service} rejected the request (${details.length} validation error${details.length === 1 ? '' : 's'})`;
  }
  const message = `${what} (${where})${x.note ? `; ${x.note}` : ''}`;
  const hint = x.status === 401 || x.status === 403 ? AUTH_HINT : undefined;
  return new ApiError(message, x.status, x.requestId, { hint, details });
}
