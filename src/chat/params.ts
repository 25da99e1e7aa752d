// Request parameters given on the command line as -o key=value (chat, rollouts, eval, train rl).

import { UsageError } from '../errors/errors.js';

/** -o key=value: the value as JSON when it parses (numbers, booleans, objects), else a string. */
export function parseParams(options: readonly string[] = []): Record<string, unknown> {
  const params: Record<string, unknown> = Object.create(null); // -o __proto__=… is a key like any other
  for (const option of options) {
    const eq = option.indexOf('=');
    if (eq <= 0) throw new UsageError(`-o ${option}: expected key=value`);
    const value = option.slice(eq + 1);
    try {
      params[option.slice(0, eq)] = JSON.parse(value);
    } catch {
      params[option.slice(0, eq)] = value;
    }
  }
  return params;
}
