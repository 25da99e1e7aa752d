// The regular expression of a --redact rule: JavaScript syntax in Unicode mode, compiled once, with
// flags only as a leading (?i), (?m), (?s) or a combination such as (?is) — the spelling Go, Python and
// the OpenTelemetry Collector's redaction processor share, so a pattern taken from a collector config
// reads the same here. Inline flags anywhere else are refused: Node 20 and 22 reject them and later
// Node versions take some of them, so the same rule would mean different things on different machines.

import { UsageError } from '../../errors/errors.js';

/** The flags a leading (?…) may set. */
const ALLOWED_FLAGS = new Set(['i', 'm', 's']);

/**
 * Where a `(?` followed by a letter or `-` (an inline flag group, or Python's `(?P<name>`) starts,
 * outside escapes and character classes; -1 when there is none.
 */
function inlineFlagGroupAt(source: string): number {
  let inClass = false;
  for (let i = 0; i < source.length; i++) {
    const c = source[i];
    if (c === '\\') i++;
    else if (inClass) inClass = c !== ']';
    else if (c === '[') inClass = true;
    else if (c === '(' && source[i + 1] === '?' && /[A-Za-z-]/.test(source[i + 2] ?? '')) return i;
  }
  return -1;
}

/** V8's reason, without the pattern it repeats: "Invalid regular expression: /x/gu: Nothing to repeat". */
function reasonOf(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.slice(message.lastIndexOf(': ') + 2);
}

/** The rule's pattern, compiled for replacing every match (g). Throws a UsageError saying what is wrong. */
export function compileRegex(text: string): RegExp {
  const leading = /^\(\?([A-Za-z]+)\)/.exec(text);
  const flags = leading ? [...leading[1]!] : [];
  const bad = flags.find((flag) => !ALLOWED_FLAGS.has(flag));
  if (bad !== undefined)
    throw new UsageError(`(?${leading![1]}): the flag ${bad} is not supported; only i, m and s are`);
  const source = leading ? text.slice(leading[0].length) : text;
  if (source === '') throw new UsageError('the regular expression is empty');
  const inline = inlineFlagGroupAt(source);
  if (inline >= 0)
    throw new UsageError(
      `${JSON.stringify(`${source.slice(inline, inline + 4)}…`)} at ${inline + (leading?.[0].length ?? 0)}: inline flags are supported only at the start, as (?i), (?m), (?s)`,
    );
  try {
    return new RegExp(source, `gu${[...new Set(flags)].join('')}`);
  } catch (error) {
    throw new UsageError(`not a valid regular expression: ${reasonOf(error)}`);
  }
}
