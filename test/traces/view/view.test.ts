// The read model and its drawing: summaries, the tree of untrusted spans (orphans, cycles, ids seen
// twice, a chain 50,000 deep, ids and names of "__proto__"), the filter grammar, and names with
// terminal escapes drawn harmlessly.

import { describe, expect, it } from 'vitest';
import { parseTraceFilter } from '../../../src/traces/view/filter.js';
import { groupTraces, type SpanView, summarize } from '../../../src/traces/view/model.js';
import { spanDuration, traceHeading, treeLines } from '../../../src/traces/view/render.js';
import { buildTree } from '../../../src/traces/view/tree.js';
import { fakeIO } from '../../helpers/io.js';

const T = 'a'.repeat(32);

function span(id: string, parent: string | null, over: Partial<SpanView> = {}): SpanView {
  const at = BigInt(over.start_ns ?? '1795168800000000000');
  return {
    trace_id: T,
    span_id: id,
    parent_id: parent,
    name: `span ${id}`,
    kind: 'internal',
    start: new Date(Number(at / 1_000_000n)).toISOString(),
    start_ns: String(at),
    end_ns: String(at + 1_000_000n),
    duration_ms: 1,
    status: 'unset',
    status_message: null,
    project: null,
    service: null,
    model: null,
    input_tokens: null,
    output_tokens: null,
    operation: null,
    tool: null,
    ...over,
  };
}

const names = (spans: SpanView[]) => buildTree(spans).map((l) => `${l.prefix}${l.span.span_id}`);

describe('the tree of a trace', () => {
  it('draws children under parents by start, orphans at the top level', () => {
    const spans = [
      span('c2', 'r', { start_ns: '1795168800000000300' }),
      span('c1', 'r', { start_ns: '1795168800000000200' }),
      span('g', 'c1'),
      span('r', null, { start_ns: '1795168800000000100' }),
      span('orphan', 'missing', { start_ns: '1795168800000000900' }),
    ];
    expect(names(spans)).toEqual(['r', '├─ c1', '│  └─ g', '└─ c2', 'orphan']);
  });

  it('draws a span id seen twice once, a cycle from its earliest span, a self-parent at the top', () => {
    const spans = [
      span('a', 'b', { start_ns: '1795168800000000002' }),
      span('b', 'a', { start_ns: '1795168800000000001' }),
      span('a', null, { name: 'second a' }),
      span('self', 'self'),
      span('__proto__', 'constructor'),
      span('constructor', '__proto__', { start_ns: '1795168800000000005' }),
    ];
    const tree = buildTree(spans);
    expect(tree.map((l) => l.span.span_id).sort()).toEqual(['__proto__', 'a', 'b', 'constructor', 'self']);
    expect(tree.find((l) => l.span.span_id === 'a')!.span.name).toBe('span a');
    expect(names(spans)).toContain('self');
  });

  it('walks a chain 50,000 deep without recursion, its prefix bounded', () => {
    const spans = Array.from({ length: 50_000 }, (_, i) => span(`s${i}`, i === 0 ? null : `s${i - 1}`));
    const tree = buildTree(spans);
    expect(tree).toHaveLength(50_000);
    expect(tree.at(-1)!.depth).toBe(49_999);
    expect(tree.at(-1)!.prefix.length).toBeLessThan(120);
    expect(tree.at(-1)!.prefix).toContain('…49999');
  });
});

describe('summaries', () => {
  it('counts tokens once when an agent span carries its calls’ sum, and an agent’s alone otherwise', () => {
    const agent = span('r', null, { operation: 'invoke_agent', input_tokens: 100, output_tokens: 10 });
    const chat = span('c', 'r', { operation: 'chat', input_tokens: 100, output_tokens: 10, model: 'm1' });
    expect(summarize([agent, chat])).toMatchObject({
      input_tokens: 100,
      output_tokens: 10,
      models: ['m1'],
      root: 'span r',
    });
    expect(summarize([agent])).toMatchObject({ input_tokens: 100, output_tokens: 10 });
  });

  it('groups by trace with a Map: a trace id of __proto__ is a trace like another', () => {
    const groups = groupTraces([
      span('x', null, { trace_id: '__proto__' }),
      span('y', null, { trace_id: 'constructor' }),
    ]);
    expect(groups.map((g) => g.summary.trace_id).sort()).toEqual(['__proto__', 'constructor']);
  });
});

describe('the filter', () => {
  const groups = groupTraces([
    span('r1', null, {
      trace_id: '1'.repeat(32),
      name: 'invoke_agent support',
      model: 'gpt',
      service: 'svc',
    }),
    span('e1', 'r1', { trace_id: '1'.repeat(32), status: 'error', tool: 'search' }),
    span('r2', null, {
      trace_id: '2'.repeat(32),
      name: 'cron',
      duration_ms: 5000,
      end_ns: '1795168805000000000',
    }),
  ]);
  const ids = (...terms: string[]) =>
    groups.filter(parseTraceFilter(terms)!).map((g) => g.summary.trace_id[0]);

  it('matches each term, all of them', () => {
    expect(ids('error')).toEqual(['1']);
    expect(ids('no-error')).toEqual(['2']);
    expect(ids('name~^invoke')).toEqual(['1']);
    expect(ids('name=cron')).toEqual(['2']);
    expect(ids('model=gpt', 'tool=search')).toEqual(['1']);
    expect(ids('model!=gpt')).toEqual(['2']);
    expect(ids('duration>2s')).toEqual(['2']);
    expect(ids('spans>=2,service=svc')).toEqual(['1']);
    expect(ids('span~^span e')).toEqual(['1']);
    expect(parseTraceFilter([])).toBeUndefined();
  });

  it('refuses a term it does not know, in one line', () => {
    expect(() => parseTraceFilter(['colour=red'])).toThrow('--filter "colour=red": unknown key "colour"');
    expect(() => parseTraceFilter(['name~('])).toThrow(/not a regular expression/);
    expect(() => parseTraceFilter(['duration>soon'])).toThrow(/expected a duration/);
    expect(() => parseTraceFilter(['model>3'])).toThrow(/model takes =, != or ~/);
    expect(() => parseTraceFilter(['__proto__=x'])).toThrow(/unknown key/);
    expect(() => parseTraceFilter(['???'])).toThrow(/expected error, no-error or KEY=VALUE/);
  });
});

describe('drawing', () => {
  it('gives durations their unit', () => {
    expect([0.42, 37.4, 1250, 125_000].map(spanDuration)).toEqual(['0.42ms', '37ms', '1.25s', '2m5s']);
  });

  it('draws a waterfall on a terminal, and escapes a hostile name', () => {
    const { io, stdout } = fakeIO({ stdoutTTY: true, columns: 100 });
    const spans = [
      span('r', null, {
        name: 'root\u001b]52;c;ZXZpbA==\u0007\u001b[2J',
        duration_ms: 10,
        end_ns: '1795168800010000000',
      }),
      span('c', 'r', {
        name: 'chat\nforged line',
        start_ns: '1795168800005000000',
        end_ns: '1795168800010000000',
        duration_ms: 5,
        status: 'error',
        status_message: 'bad\u001b[31m',
        model: 'gpt',
        input_tokens: 12,
        output_tokens: 3,
      }),
    ];
    const tree = buildTree(spans);
    const trace = summarize(spans);
    io.out(traceHeading(io, trace));
    for (const line of treeLines(io, tree, trace)) io.out(line);
    const text = stdout.text;
    // aip's own colours pass; none of the span's escapes do.
    expect(text).not.toMatch(/\u001b\]|\u0007|\u001b\[2J/);
    expect(text).toContain('root^[]52;c;ZXZpbA==^G^[[2J');
    expect(text).toContain('chat^Jforged line');
    expect(text.split('\n')).toHaveLength(4);
    expect(text).toMatch(/█/);
    expect(text).toContain('error: bad^[[31m');
    expect(text).toContain('12/3 tokens');
  });

  it('draws no bar when piped', () => {
    const { io } = fakeIO({ stdoutTTY: false });
    const spans = [span('r', null), span('c', 'r')];
    const lines = treeLines(io, buildTree(spans), summarize(spans));
    expect(lines).toEqual(['span r  1ms', '└─ span c  1ms']);
  });
});
