// The presets against spans as GenAI SDKs make them: the old OpenTelemetry conventions (and
// OpenLLMetry's indexed form), the new ones, content in span events, OpenInference, Vercel AI SDK.
// And docs/redaction.md names every attribute the presets cover.

import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { PRESETS } from '../../../src/traces/redact/presets.js';
import { entries, kv, redactor, request, str, where } from './requests.js';

const PROMPT = 'Summarise the medical record of patient 7731';
const ANSWER = 'Patient 7731 has a history of';
const TOOL_ARGS = '{"patient_id":7731}';
const TOOL_RESULT = '{"allergies":["penicillin"]}';

const keep = [str('gen_ai.operation.name', 'chat'), str('gen_ai.request.model', 'gpt-4o')];

/** OpenLLMetry / OpenTelemetry up to 1.26: indexed span attributes. */
const oldStyle = () =>
  request({
    span: [
      ...keep,
      str('gen_ai.prompt.0.role', 'system'),
      str('gen_ai.prompt.0.content', 'You are a careful assistant'),
      str('gen_ai.prompt.1.role', 'user'),
      str('gen_ai.prompt.1.content', PROMPT),
      str('gen_ai.completion.0.role', 'assistant'),
      str('gen_ai.completion.0.content', ANSWER),
      str('gen_ai.completion.0.tool_calls.0.name', 'lookup'),
      str('gen_ai.completion.0.tool_calls.0.arguments', TOOL_ARGS),
      kv('gen_ai.usage.input_tokens', { intValue: { low: 120, high: 0 } }),
    ],
    events: [
      { name: 'gen_ai.content.prompt', attributes: [str('gen_ai.prompt', PROMPT)] },
      { name: 'gen_ai.content.completion', attributes: [str('gen_ai.completion', ANSWER)] },
    ],
  });

/** OpenTelemetry 1.37 and later: messages as JSON text, tool calls on execute_tool spans. */
const newStyle = () =>
  request({
    span: [
      ...keep,
      str('gen_ai.system_instructions', '[{"type":"text","content":"You are careful"}]'),
      str(
        'gen_ai.input.messages',
        JSON.stringify([{ role: 'user', parts: [{ type: 'text', content: PROMPT }] }]),
      ),
      str(
        'gen_ai.output.messages',
        JSON.stringify([{ role: 'assistant', parts: [{ type: 'text', content: ANSWER }] }]),
      ),
      str('gen_ai.tool.call.arguments', TOOL_ARGS),
      str('gen_ai.tool.call.result', TOOL_RESULT),
      str('gen_ai.tool.name', 'lookup'),
    ],
  });

/** 1.27–1.36 content as span events (Strands Agents, Azure AI Inference). */
const eventStyle = () =>
  request({
    span: [...keep, str('content', 'a span attribute that happens to be called content')],
    events: [
      { name: 'gen_ai.system.message', attributes: [str('content', 'You are careful')] },
      { name: 'gen_ai.user.message', attributes: [str('content', PROMPT), str('role', 'user')] },
      { name: 'gen_ai.tool.message', attributes: [str('content', TOOL_RESULT), str('id', 'call_1')] },
      {
        name: 'gen_ai.user.message',
        attributes: [str('gen_ai.event.content', JSON.stringify({ content: PROMPT }))],
      },
      {
        name: 'gen_ai.choice',
        attributes: [str('message', ANSWER), str('finish_reason', 'stop'), str('tool_calls', TOOL_ARGS)],
      },
      { name: 'exception', attributes: [str('message', 'not content: an exception event')] },
    ],
  });

/** OpenInference: input.value/output.value and flattened message lists. */
const openInference = () =>
  request({
    span: [
      str('openinference.span.kind', 'LLM'),
      str('input.value', PROMPT),
      str('input.mime_type', 'text/plain'),
      str('llm.input_messages.0.message.role', 'user'),
      str('llm.input_messages.0.message.content', PROMPT),
      str('llm.output_messages.0.message.role', 'assistant'),
      str('llm.output_messages.0.message.content', ANSWER),
      str('llm.output_messages.0.message.tool_calls.0.tool_call.function.name', 'lookup'),
      str('llm.output_messages.0.message.tool_calls.0.tool_call.function.arguments', TOOL_ARGS),
      str('output.value', ANSWER),
      str('llm.model_name', 'gpt-4o'),
    ],
  });

function allText(req: ReturnType<typeof request>): string {
  const { span } = where(req);
  return JSON.stringify([entries(span.attributes), ...(span.events ?? []).map((e) => entries(e.attributes))]);
}

describe('--redact-preset content', () => {
  it('leaves no prompt, completion or tool content in any of the styles', () => {
    for (const make of [oldStyle, newStyle, eventStyle, openInference]) {
      const req = make();
      redactor({ presets: ['content'] }).apply(req);
      const text = allText(req);
      for (const secret of [PROMPT, ANSWER, 'patient_id', 'penicillin', 'You are careful'])
        expect(text, make.name).not.toContain(secret);
      expect(text).toContain('[REDACTED]');
    }
  });

  it('keeps what is not content: model, operation, token counts, tool names, mime types', () => {
    const old = oldStyle();
    redactor({ presets: ['content'] }).apply(old);
    expect(entries(where(old).span.attributes)).toEqual(
      expect.arrayContaining([
        ['gen_ai.operation.name', 'chat'],
        ['gen_ai.request.model', 'gpt-4o'],
        ['gen_ai.usage.input_tokens', 120],
      ]),
    );
    const oi = openInference();
    redactor({ presets: ['content'] }).apply(oi);
    expect(entries(where(oi).span.attributes)).toEqual(
      expect.arrayContaining([
        ['openinference.span.kind', 'LLM'],
        ['input.mime_type', 'text/plain'],
        ['llm.model_name', 'gpt-4o'],
      ]),
    );
  });

  it('masks event content only inside GenAI events, never a span attribute or an exception called so', () => {
    const req = eventStyle();
    redactor({ presets: ['content'] }).apply(req);
    const { span } = where(req);
    expect(entries(span.attributes)).toContainEqual([
      'content',
      'a span attribute that happens to be called content',
    ]);
    const events = span.events!.map((e) => [e.name, entries(e.attributes)]);
    expect(events).toEqual([
      ['gen_ai.system.message', [['content', '[REDACTED]']]],
      [
        'gen_ai.user.message',
        [
          ['content', '[REDACTED]'],
          ['role', 'user'],
        ],
      ],
      [
        'gen_ai.tool.message',
        [
          ['content', '[REDACTED]'],
          ['id', 'call_1'],
        ],
      ],
      ['gen_ai.user.message', [['gen_ai.event.content', '[REDACTED]']]],
      [
        'gen_ai.choice',
        [
          ['message', '[REDACTED]'],
          ['finish_reason', 'stop'],
          ['tool_calls', '[REDACTED]'],
        ],
      ],
      ['exception', [['message', 'not content: an exception event']]],
    ]);
  });
});

describe('the presets one by one', () => {
  it('prompts masks inputs and leaves outputs', () => {
    const req = newStyle();
    const counts = redactor({ presets: ['prompts'] }).apply(req);
    const attributes = new Map(entries(where(req).span.attributes));
    expect(attributes.get('gen_ai.input.messages')).toBe('[REDACTED]');
    expect(attributes.get('gen_ai.system_instructions')).toBe('[REDACTED]');
    expect(attributes.get('gen_ai.output.messages')).toContain(ANSWER);
    expect(attributes.get('gen_ai.tool.call.result')).toBe(TOOL_RESULT);
    expect(counts).toEqual({ redacted: 2, dropped: 0 });
  });

  it('completions masks outputs and leaves inputs', () => {
    const req = openInference();
    redactor({ presets: ['completions'] }).apply(req);
    const attributes = new Map(entries(where(req).span.attributes));
    expect(attributes.get('input.value')).toBe(PROMPT);
    expect(attributes.get('llm.input_messages.0.message.content')).toBe(PROMPT);
    expect(attributes.get('output.value')).toBe('[REDACTED]');
    expect(attributes.get('llm.output_messages.0.message.content')).toBe('[REDACTED]');
    // The whole family: a role too, so that no field a later SDK adds escapes.
    expect(attributes.get('llm.output_messages.0.message.role')).toBe('[REDACTED]');
  });

  it('tool-io masks tool arguments and results, wherever they are, and nothing else', () => {
    for (const make of [oldStyle, newStyle, openInference]) {
      const req = make();
      redactor({ presets: ['tool-io'] }).apply(req);
      const text = allText(req);
      expect(text, make.name).not.toContain('patient_id');
      expect(text, make.name).not.toContain('penicillin');
    }
    const req = newStyle();
    redactor({ presets: ['tool-io'] }).apply(req);
    const attributes = new Map(entries(where(req).span.attributes));
    expect(attributes.get('gen_ai.input.messages')).toContain(PROMPT);
    expect(attributes.get('gen_ai.tool.name')).toBe('lookup');
  });

  it('masks a value of any type as the string [REDACTED]', () => {
    const req = request({
      span: [
        kv('input.value', { bytesValue: new Uint8Array([1, 2, 3]) }),
        kv('output.value', {
          arrayValue: { values: [{ stringValue: ANSWER }, { intValue: { low: 7731, high: 0 } }] },
        }),
        kv('gen_ai.prompt', { kvlistValue: { values: [str('content', PROMPT)] } }),
        kv('gen_ai.completion', { doubleValue: 7731.5 }),
      ],
    });
    expect(redactor({ presets: ['content'] }).apply(req)).toEqual({ redacted: 4, dropped: 0 });
    expect(entries(where(req).span.attributes).map(([, value]) => value)).toEqual(
      Array(4).fill('[REDACTED]'),
    );
  });
});

describe('docs/redaction.md', () => {
  it('names every attribute and event of every preset', () => {
    const docs = readFileSync(new URL('../../../docs/redaction.md', import.meta.url), 'utf8');
    for (const [preset, { attributes, eventAttributes }] of PRESETS) {
      expect(docs).toContain(`\`${preset}\``);
      for (const { name } of attributes) expect(docs, name).toContain(`\`${name}\``);
      for (const { events, names } of eventAttributes)
        for (const name of [...events, ...names]) expect(docs, name).toContain(`\`${name}\``);
    }
  });
});
