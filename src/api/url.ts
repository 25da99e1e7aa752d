// URL building. Bases end in /v1 (product.md §1.1) and paths are appended to them as strings:
// `new URL(path, base)` would drop the base's own path. Values put into a path are encoded so that
// a name can never change which endpoint is called.

import { UsageError } from '../errors/errors.js';

export type Query = Record<string, string | number | boolean | undefined>;

/**
 * One path segment, percent-encoded. '.', '..' and '' are refused: URL parsers fold them, and no
 * escape survives ('%2e%2e' folds too). Anything else, '%2F' and '../x' included, is encoded whole.
 */
export function segment(value: string | number): string {
  const text = String(value);
  if (text === '' || text === '.' || text === '..') {
    throw new UsageError(`invalid identifier "${text}" in a URL path`);
  }
  return encodeURIComponent(text);
}

/** Tagged template for API paths: p`/preview/models/${id}/checkpoints` encodes each value. */
export function p(strings: TemplateStringsArray, ...values: Array<string | number>): string {
  return strings.reduce((acc, part, i) => acc + part + (i < values.length ? segment(values[i]!) : ''), '');
}

export function joinUrl(base: string, path: string, query?: Query): string {
  const url = `${base.replace(/\/+$/, '')}/${path.replace(/^\/+/, '')}`;
  if (!query) return url;
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value !== undefined) params.append(key, String(value));
  }
  const qs = params.toString();
  return qs ? `${url}?${qs}` : url;
}
