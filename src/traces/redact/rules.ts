// Redaction rules, from the values of --redact ATTR=REGEX, --drop ATTR and --redact-preset NAME, checked
// and compiled once, as the command line is parsed: a bad rule is a usage error before any span is
// taken in, never a span sent unredacted.

import { UsageError } from '../../errors/errors.js';
import { ENTITY_ATTRIBUTE, PROJECT_ATTRIBUTE } from '../otlp/routing.js';
import { PRESET_NAMES, PRESETS, type PresetName } from './presets.js';
import { compileRegex } from './regex.js';

/** What replaces a match of a --redact pattern, and the whole value of a preset's attribute. */
export const REDACTED = '[REDACTED]';

/**
 * drop: the attribute is removed. mask (presets): its whole value becomes the string [REDACTED].
 * redact: every match of `pattern` in its strings becomes [REDACTED].
 */
export type RuleKind = 'drop' | 'mask' | 'redact';

export interface Rule {
  kind: RuleKind;
  /** The attribute name as given: exact, or a glob where * is any run of characters, dots included. */
  name: string;
  /** The glob, compiled; none for an exact name. */
  glob?: Glob;
  /** A redact rule's pattern (global: every match is replaced). */
  pattern?: RegExp;
  /** Only the attributes of span events with one of these names (presets' generic names: content…). */
  events?: ReadonlySet<string>;
}

/** The attributes that route spans to a project (otlp/routing.ts): the platform drops spans without them. */
export const ROUTING_ATTRIBUTES: ReadonlySet<string> = new Set([ENTITY_ATTRIBUTE, PROJECT_ATTRIBUTE]);

/**
 * A glob: literal parts between `*`s, where `*` is any run of characters, dots included (so that
 * `gen_ai.prompt.*` is the whole indexed family: gen_ai.prompt.0.content…). Matched by a walk of
 * indexOf, leftmost first, which is right for `*` alone and linear in the name: the regex it replaced
 * (one `[\s\S]*` a star) backtracked, 4.5 s on a 192 KB attribute name from the wire.
 */
export class Glob {
  private readonly parts: readonly string[];

  constructor(name: string) {
    this.parts = name.split('*');
  }

  test(key: string): boolean {
    const { parts } = this;
    if (parts.length === 1) return key === parts[0];
    const first = parts[0]!;
    const last = parts[parts.length - 1]!;
    if (key.length < first.length + last.length || !key.startsWith(first) || !key.endsWith(last))
      return false;
    const end = key.length - last.length;
    let at = first.length;
    for (let i = 1; i < parts.length - 1; i++) {
      const found = key.indexOf(parts[i]!, at);
      if (found < 0 || found + parts[i]!.length > end) return false;
      at = found + parts[i]!.length;
    }
    return true;
  }
}

function compileGlob(name: string): Glob | undefined {
  return name.includes('*') ? new Glob(name) : undefined;
}

function checkedName(name: string): string {
  if (name.trim() === '') throw new UsageError('the attribute name is empty');
  if (name.trim() !== name)
    throw new UsageError(
      `${JSON.stringify(name)}: the attribute name has spaces around it (quoting gone wrong?)`,
    );
  // Refused, not matched: no convention has them, and the name is then safe to print in a message.
  if (/[\u0000-\u001f\u007f]/.test(name))
    throw new UsageError(`${JSON.stringify(name)}: the attribute name has a control character`);
  // A glob that covers them (*, wandb.*) is taken: apply.ts leaves these two alone whatever matches.
  if (ROUTING_ATTRIBUTES.has(name))
    throw new UsageError(
      `${name} routes spans to their project (without it the platform drops them): redaction leaves it alone`,
    );
  return name;
}

/** One --redact value, ATTR=REGEX (split at the first =: a regex may hold one, a name does not). */
export function parseRedact(value: string): Rule {
  const at = value.indexOf('=');
  if (at < 0)
    throw new UsageError(
      `${JSON.stringify(value)}: expected ATTR=REGEX; to remove an attribute, --drop ATTR`,
    );
  const name = checkedName(value.slice(0, at));
  let pattern: RegExp;
  try {
    pattern = compileRegex(value.slice(at + 1));
  } catch (error) {
    throw new UsageError(`${name}: ${(error as Error).message}`);
  }
  return { kind: 'redact', name, glob: compileGlob(name), pattern };
}

/** One --drop value, ATTR. */
export function parseDrop(value: string): Rule {
  const name = checkedName(value);
  return { kind: 'drop', name, glob: compileGlob(name) };
}

export function parsePresetName(value: string): PresetName {
  const known = PRESET_NAMES.find((name) => name === value);
  if (!known)
    throw new UsageError(
      `unknown preset ${JSON.stringify(value)}; the presets are ${PRESET_NAMES.join(', ')}`,
    );
  return known;
}

/**
 * A preset's rules. They mask, replacing the whole value, whatever its type, with the string
 * [REDACTED], rather than drop: the trace still shows that a span had content and that it was removed
 * here, not that the SDK never captured it; and these attributes are strings in their conventions (text,
 * or JSON text), so a string is the type a viewer expects. Nothing finer than the whole value: in a
 * structured value (messages as a kvlist, tool arguments) numbers and keys are content too.
 */
export function presetRules(name: PresetName): Rule[] {
  const preset = PRESETS.get(name)!;
  const everywhere = preset.attributes.map(
    (a): Rule => ({ kind: 'mask', name: a.name, glob: compileGlob(a.name) }),
  );
  const inEvents = preset.eventAttributes.flatMap(({ events, names }) =>
    names.map((n): Rule => ({ kind: 'mask', name: n, glob: compileGlob(n), events: new Set(events) })),
  );
  return [...everywhere, ...inEvents];
}

/** Whether the rule is about an attribute known by `key` (a name, or a path into a kvlist: attr.key). */
export function ruleMatches(rule: Rule, key: string): boolean {
  return rule.glob ? rule.glob.test(key) : rule.name === key;
}
