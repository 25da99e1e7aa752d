// A trace's spans as a tree, in the order `show` draws them: each span under its parent, children by
// start time. The spans are untrusted input, so the tree holds whatever arrives: a span whose parent
// is missing (not yet arrived, or lost) is drawn at the top level; a span id seen twice is drawn once
// (the first); spans that are each other's ancestors (a cycle, which no real tracer makes) are drawn
// from the earliest of them, once each. The walk is iterative: a chain 100,000 deep is no recursion.

import { compareNanos, type SpanView } from './model.js';

export interface TreeLine {
  span: SpanView;
  depth: number;
  /** The tree drawn left of the name: "│  ├─ ". */
  prefix: string;
}

/** Past this depth the prefix stops growing, and says how deep the span is instead. */
export const MAX_DRAWN_DEPTH = 24;

const byStart = (a: SpanView, b: SpanView) =>
  compareNanos(a.start_ns, b.start_ns) || (a.span_id < b.span_id ? -1 : a.span_id > b.span_id ? 1 : 0);

function prefixOf(guides: readonly boolean[], last: boolean, depth: number): string {
  if (depth === 0) return '';
  const shown = guides.slice(0, MAX_DRAWN_DEPTH - 1).map((more) => (more ? '│  ' : '   '));
  const deeper = depth > MAX_DRAWN_DEPTH ? `…${depth} ` : '';
  return `${shown.join('')}${deeper}${last ? '└─ ' : '├─ '}`;
}

interface Frame {
  span: SpanView;
  depth: number;
  /** For each ancestor level below the top: whether more siblings follow there (a guide line). */
  guides: boolean[];
  last: boolean;
}

export function buildTree(spans: readonly SpanView[]): TreeLine[] {
  const byId = new Map<string, SpanView>();
  for (const span of spans) if (!byId.has(span.span_id)) byId.set(span.span_id, span);
  const unique = [...byId.values()];
  const children = new Map<string, SpanView[]>();
  const tops: SpanView[] = [];
  for (const span of unique) {
    const parent = span.parent_id;
    if (parent === null || parent === span.span_id || !byId.has(parent)) tops.push(span);
    else {
      const list = children.get(parent);
      if (list) list.push(span);
      else children.set(parent, [span]);
    }
  }
  for (const list of children.values()) list.sort(byStart);
  const lines: TreeLine[] = [];
  const drawn = new Set<string>();
  const walk = (top: SpanView, lastTop: boolean) => {
    const stack: Frame[] = [{ span: top, depth: 0, guides: [], last: lastTop }];
    while (stack.length > 0) {
      const { span, depth, guides, last } = stack.pop()!;
      if (drawn.has(span.span_id)) continue;
      drawn.add(span.span_id);
      lines.push({ span, depth, prefix: prefixOf(guides, last, depth) });
      const kids = (children.get(span.span_id) ?? []).filter((k) => !drawn.has(k.span_id));
      const nextGuides = depth === 0 ? [] : [...guides.slice(0, MAX_DRAWN_DEPTH), !last];
      for (let i = kids.length - 1; i >= 0; i--)
        stack.push({ span: kids[i]!, depth: depth + 1, guides: nextGuides, last: i === kids.length - 1 });
    }
  };
  tops.sort(byStart);
  for (const [i, top] of tops.entries()) walk(top, i === tops.length - 1);
  // What no top reaches is in a cycle: drawn from its earliest span, until every span is drawn.
  for (const span of [...unique].sort(byStart)) if (!drawn.has(span.span_id)) walk(span, true);
  return lines;
}
