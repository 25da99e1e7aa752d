// `aip traces list --filter`: a few terms, all of which a trace must match (each --filter one term, or
// several joined by commas):
//
//   error                   a span of the trace has status ERROR       (no-error: none has)
//   name=TEXT, name~REGEX   the root span's name is TEXT, or matches REGEX
//   span=TEXT, span~REGEX   some span's name is TEXT, or matches REGEX
//   model=, service=, project=, tool=, operation=   (also ~REGEX, and != for "none is")
//                           some span's model (gen_ai.response.model, else gen_ai.request.model),
//                           service.name, wandb.entity/wandb.project, gen_ai.tool.name or
//                           gen_ai.operation.name is it
//   duration>2s, duration<500ms, spans>10, tokens>1000   (also >= and <=)
//
// A term that is none of these is a usage error naming it, before anything is read.

import { UsageError } from '../../errors/errors.js';
import { parseDuration } from '../../output/time.js';
import type { SpanView, TraceGroup } from './model.js';

export type TraceFilter = (trace: TraceGroup) => boolean;

const TEXT_KEYS = ['name', 'span', 'model', 'service', 'project', 'tool', 'operation'] as const;
type TextKey = (typeof TEXT_KEYS)[number];
const NUMBER_KEYS = ['duration', 'spans', 'tokens'] as const;
type NumberKey = (typeof NUMBER_KEYS)[number];

/** What a text key looks at in a trace: one value (name) or each span's. */
function valuesOf(trace: TraceGroup, key: TextKey): Array<string | null> {
  const spans = trace.spans;
  const each = (pick: (s: SpanView) => string | null) => spans.map(pick);
  switch (key) {
    case 'name':
      return [trace.summary.root];
    case 'span':
      return each((s) => s.name);
    case 'model':
      return each((s) => s.model);
    case 'service':
      return each((s) => s.service);
    case 'project':
      return each((s) => s.project);
    case 'tool':
      return each((s) => s.tool);
    case 'operation':
      return each((s) => s.operation);
  }
}

function numberOf(trace: TraceGroup, key: NumberKey): number {
  const s = trace.summary;
  if (key === 'duration') return s.duration_ms;
  if (key === 'spans') return s.spans;
  return s.input_tokens + s.output_tokens;
}

function bad(term: string, why: string): UsageError {
  return new UsageError(`--filter ${JSON.stringify(term)}: ${why}`, {
    hint: 'terms: error, no-error, name=|~, span=|~, model=|~|!=, service=, project=, tool=, operation=, duration>2s, spans>10, tokens>1000',
  });
}

function regexOf(term: string, source: string): RegExp {
  try {
    return new RegExp(source);
  } catch (error) {
    throw bad(term, `not a regular expression (${(error as Error).message})`);
  }
}

function textTerm(term: string, key: TextKey, op: string, value: string): TraceFilter {
  if (op === '~') {
    const regex = regexOf(term, value);
    return (t) => valuesOf(t, key).some((v) => v !== null && regex.test(v));
  }
  if (op === '=') return (t) => valuesOf(t, key).some((v) => v === value);
  if (op === '!=') return (t) => !valuesOf(t, key).some((v) => v === value);
  throw bad(term, `${key} takes =, != or ~`);
}

function numberTerm(term: string, key: NumberKey, op: string, value: string): TraceFilter {
  const n = key === 'duration' ? parseDuration(value) : /^\d+$/.test(value) ? Number(value) : undefined;
  if (n === undefined)
    throw bad(term, key === 'duration' ? 'expected a duration (2s, 500ms, 1m)' : 'expected a whole number');
  const compare: Record<string, (a: number) => boolean> = {
    '>': (a) => a > n,
    '<': (a) => a < n,
    '>=': (a) => a >= n,
    '<=': (a) => a <= n,
  };
  const test = Object.hasOwn(compare, op) ? compare[op] : undefined;
  if (!test) throw bad(term, `${key} takes >, <, >= or <=`);
  return (t) => test(numberOf(t, key));
}

function parseTerm(term: string): TraceFilter {
  const text = term.trim();
  if (text === 'error') return (t) => t.summary.errors > 0;
  if (text === 'no-error') return (t) => t.summary.errors === 0;
  const match = /^([a-z_.]+)\s*(!=|>=|<=|=|~|>|<)(.*)$/.exec(text);
  if (!match) throw bad(term, 'expected error, no-error or KEY=VALUE (KEY~REGEX, KEY>NUMBER)');
  const [, key, op, value] = match as unknown as [string, string, string, string];
  if ((TEXT_KEYS as readonly string[]).includes(key)) return textTerm(term, key as TextKey, op, value);
  if ((NUMBER_KEYS as readonly string[]).includes(key))
    return numberTerm(term, key as NumberKey, op, value.trim());
  throw bad(term, `unknown key ${JSON.stringify(key)}`);
}

/** The filter the --filter values make (every term must match); undefined for none. */
export function parseTraceFilter(values: readonly string[] | undefined): TraceFilter | undefined {
  // A regex may hold a comma: only a term that does not start a new key=… is split off.
  const terms = (values ?? []).flatMap((v) =>
    v.split(/,(?=\s*(?:error|no-error|[a-z]+\s*(?:!=|>=|<=|=|~|>|<)))/),
  );
  if (terms.length === 0) return undefined;
  const filters = terms.map(parseTerm);
  return (trace) => filters.every((f) => f(trace));
}
