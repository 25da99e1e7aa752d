// Redaction of a decoded OTLP request, in place, before anything leaves the machine: the attributes of
// resources, scopes, spans, span events and links, and inside them the values of arrays and kvlists.
// A kvlist entry is known by its path, `attr.key` (`attr.outer.inner` deeper down); an array adds
// nothing to the path, so a rule about an array attribute is about every element of it.

import type { PbAnyValue, PbExportRequest, PbKeyValue, PbSpan } from '../otlp/otlp.js';
import { RuleTable } from './lookup.js';
import { REDACTED, type Rule } from './rules.js';

/** What a request's redaction did: values changed or masked, and attributes (or kvlist entries) removed. */
export interface RedactionCounts {
  redacted: number;
  dropped: number;
}

interface WithAttributes {
  attributes?: PbKeyValue[];
  droppedAttributesCount?: number;
}

const NO_PATTERNS: readonly RegExp[] = [];

/** An empty match replaces nothing: `x*` must not write [REDACTED] between every two characters. */
const replaceMatch = (match: string) => (match === '' ? '' : REDACTED);

function redactString(text: string, patterns: readonly RegExp[]): string {
  let out = text;
  for (const pattern of patterns) out = out.replace(pattern, replaceMatch);
  return out;
}

/**
 * Redacts one value with the patterns of the attributes it is inside; bytes are left as they are (a
 * pattern is about text: --drop or a preset removes them).
 */
function redactValue(
  value: PbAnyValue,
  name: string,
  table: RuleTable,
  patterns: readonly RegExp[],
  counts: RedactionCounts,
): void {
  if (typeof value.stringValue === 'string') {
    if (patterns.length === 0) return;
    const redacted = redactString(value.stringValue, patterns);
    if (redacted !== value.stringValue) {
      value.stringValue = redacted;
      counts.redacted++;
    }
  } else if (value.arrayValue) {
    for (const element of value.arrayValue.values ?? []) redactValue(element, name, table, patterns, counts);
  } else if (value.kvlistValue?.values) {
    redactList(value.kvlistValue.values, `${name}.`, table, patterns, counts);
  }
}

/** Applies the rules to one key-value known by `name`; false when it is to be removed. */
function redactEntry(
  kv: PbKeyValue,
  name: string,
  table: RuleTable,
  inherited: readonly RegExp[],
  counts: RedactionCounts,
): boolean {
  const action = table.actionFor(name);
  const value = kv.value;
  if (action?.drop) {
    counts.dropped++;
    return false;
  }
  if (!value) return true;
  if (action?.mask) {
    // A new value, not stringValue set on the old one: the old might hold another of the oneof's fields.
    kv.value = { stringValue: REDACTED };
    counts.redacted++;
    return true;
  }
  if (!action && inherited.length === 0 && !value.arrayValue && !value.kvlistValue) return true;
  const own = action?.patterns ?? NO_PATTERNS;
  const patterns = inherited.length === 0 ? own : own.length === 0 ? inherited : [...inherited, ...own];
  redactValue(value, name, table, patterns, counts);
  return true;
}

/** Redacts a list of key-values in place (names prefixed by `prefix`); returns how many were removed. */
function redactList(
  list: PbKeyValue[],
  prefix: string,
  table: RuleTable,
  inherited: readonly RegExp[],
  counts: RedactionCounts,
): number {
  let kept = 0;
  for (let i = 0; i < list.length; i++) {
    const kv = list[i]!;
    if (redactEntry(kv, prefix + kv.key, table, inherited, counts)) list[kept++] = kv;
  }
  const removed = list.length - kept;
  if (removed > 0) list.length = kept;
  return removed;
}

export class Redactor {
  /** True when there are no rules: apply() returns at once and the request is left as it came. */
  readonly isEmpty: boolean;
  private readonly everywhere: RuleTable;
  /** Per event name, its own rules (presets') with the others, in the order given. */
  private readonly byEvent: ReadonlyMap<string, RuleTable>;

  constructor(rules: readonly Rule[]) {
    this.isEmpty = rules.length === 0;
    this.everywhere = new RuleTable(rules.filter((rule) => !rule.events));
    const eventNames = new Set(rules.flatMap((rule) => [...(rule.events ?? [])]));
    this.byEvent = new Map(
      [...eventNames].map((name) => [
        name,
        new RuleTable(rules.filter((rule) => !rule.events || rule.events.has(name))),
      ]),
    );
  }

  /**
   * Redacts the request in place; what it did, for the gateway's counters. A bound function, so that
   * `redactor.apply` can be handed over as it is.
   */
  readonly apply = (request: PbExportRequest): RedactionCounts => {
    const counts: RedactionCounts = { redacted: 0, dropped: 0 };
    if (this.isEmpty) return counts;
    for (const resourceSpans of request.resourceSpans ?? []) {
      this.redactAttributes(resourceSpans.resource, this.everywhere, counts);
      for (const scopeSpans of resourceSpans.scopeSpans ?? []) {
        this.redactAttributes(scopeSpans.scope, this.everywhere, counts);
        for (const span of scopeSpans.spans ?? []) this.redactSpan(span, counts);
      }
    }
    return counts;
  };

  private redactSpan(span: PbSpan, counts: RedactionCounts): void {
    this.redactAttributes(span, this.everywhere, counts);
    for (const event of span.events ?? [])
      this.redactAttributes(event, this.byEvent.get(event.name ?? '') ?? this.everywhere, counts);
    for (const link of span.links ?? []) this.redactAttributes(link, this.everywhere, counts);
  }

  /**
   * An attribute removed is counted in droppedAttributesCount, as OTLP asks of any attribute discarded:
   * the platform can tell that the span had more than it shows.
   */
  private redactAttributes(
    holder: WithAttributes | null | undefined,
    table: RuleTable,
    counts: RedactionCounts,
  ): void {
    const list = holder?.attributes;
    if (!holder || !list || list.length === 0 || table.isEmpty) return;
    const removed = redactList(list, '', table, NO_PATTERNS, counts);
    if (removed > 0) holder.droppedAttributesCount = (holder.droppedAttributesCount ?? 0) + removed;
  }
}
