// What the rules say about one attribute name, found fast: a gateway sees tens of thousands of spans a
// second, each with tens of attributes, but only a few hundred distinct names. So each name's rules are
// combined once and kept in a Map (never a plain object: names come from the wire, and `__proto__` or
// `constructor` must be names like any other); globs run once per new name, not once per attribute.

import { ROUTING_ATTRIBUTES, type Rule, ruleMatches } from './rules.js';

/** What to do with an attribute: drop wins, then mask; patterns are applied in the order given. */
export interface Action {
  drop: boolean;
  mask: boolean;
  patterns: readonly RegExp[];
}

/**
 * Names kept at most. The names are untrusted: an exporter sending a new name on every span must not
 * grow the gateway without bound, so past this the table starts over (and recomputes what it needs).
 */
const MOST_NAMES = 10_000;

export class RuleTable {
  private readonly known = new Map<string, Action | null>();

  constructor(private readonly rules: readonly Rule[]) {
    for (const rule of rules) if (!rule.glob) this.actionFor(rule.name);
  }

  get isEmpty(): boolean {
    return this.rules.length === 0;
  }

  /** The action for an attribute known by `key`, or null when no rule is about it. */
  actionFor(key: string): Action | null {
    const known = this.known.get(key);
    if (known !== undefined) return known;
    const action = this.combine(key);
    if (this.known.size >= MOST_NAMES) this.known.clear();
    this.known.set(key, action);
    return action;
  }

  private combine(key: string): Action | null {
    if (ROUTING_ATTRIBUTES.has(key)) return null;
    const matching = this.rules.filter((rule) => ruleMatches(rule, key));
    if (matching.length === 0) return null;
    return {
      drop: matching.some((rule) => rule.kind === 'drop'),
      mask: matching.some((rule) => rule.kind === 'mask'),
      patterns: matching.flatMap((rule) => (rule.pattern ? [rule.pattern] : [])),
    };
  }
}
