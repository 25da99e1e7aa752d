// SFT examples: each malformed kind reported with the exact line and JSON path, in a JSON Lines file
// where the bad example sits on line 3 between valid ones.

import { describe, expect, it } from 'vitest';
import { checkDocuments, problemLines } from '../../src/validate/check-file.js';
import { checkSftExample, emptySftStats } from '../../src/validate/sft.js';
import { source } from './helpers.js';

const user = { role: 'user', content: 'What is 2+2?' };
const answer = { role: 'assistant', content: '4' };
const call = {
  role: 'assistant',
  content: null,
  tool_calls: [{ id: 'c1', type: 'function', function: { name: 'add', arguments: '{"a": 2, "b": 2}' } }],
};
const result = { role: 'tool', tool_call_id: 'c1', content: '4' };
const tool = { type: 'function', function: { name: 'add', parameters: { type: 'object', properties: {} } } };
const good = { messages: [{ role: 'system', content: 'be brief' }, user, answer] };

interface Kind {
  name: string;
  example: unknown;
  path: string;
  message: string;
}

const KINDS: Kind[] = [
  {
    name: 'not an object',
    example: [1],
    path: '(top level)',
    message: 'Input should be an object, not an array',
  },
  { name: 'no messages', example: { tools: [] }, path: 'messages', message: 'Field required' },
  {
    name: 'messages not a list',
    example: { messages: 'hi' },
    path: 'messages',
    message: 'Input should be a valid list',
  },
  {
    name: 'empty messages',
    example: { messages: [] },
    path: 'messages',
    message: 'messages must not be empty',
  },
  {
    name: 'message not an object',
    example: { messages: [user, 'hi'] },
    path: 'messages[1]',
    message: 'Input should be message (an object)',
  },
  {
    name: 'message without role',
    example: { messages: [user, { content: 'x' }] },
    path: 'messages[1].role',
    message: 'Field required',
  },
  {
    name: 'role not allowed in SFT',
    example: { messages: [{ role: 'developer', content: 'x' }, answer] },
    path: 'messages[0].role',
    message: "Input should be 'system', 'user', 'assistant' or 'tool'",
  },
  {
    name: 'unknown role',
    example: { messages: [user, { role: 'bot', content: 'x' }] },
    path: 'messages[1].role',
    message: 'not the string "bot"',
  },
  {
    name: 'user without content',
    example: { messages: [{ role: 'user' }, answer] },
    path: 'messages[0].content',
    message: 'Field required',
  },
  {
    name: 'content of the wrong type',
    example: { messages: [{ role: 'user', content: 7 }, answer] },
    path: 'messages[0].content',
    message: 'Input should be a string or a list of content parts, not the number 7',
  },
  {
    name: 'content part of an unknown type',
    example: { messages: [{ role: 'user', content: [{ type: 'video' }] }, answer] },
    path: 'messages[0].content[0].type',
    message: "Input should be 'text', 'image_url', 'input_audio' or 'file'",
  },
  {
    name: "last message not the assistant's",
    example: { messages: [user] },
    path: 'messages[0].role',
    message: "the last message must be the assistant's",
  },
  {
    name: 'assistant saying nothing',
    example: { messages: [user, { role: 'assistant', content: '' }] },
    path: 'messages[1]',
    message: 'an assistant message needs content or tool_calls',
  },
  {
    name: 'tool call without id',
    example: {
      messages: [
        user,
        { role: 'assistant', tool_calls: [{ type: 'function', function: { name: 'f', arguments: '{}' } }] },
      ],
    },
    path: 'messages[1].tool_calls[0].id',
    message: 'Field required',
  },
  {
    name: 'tool call of unknown type',
    example: { messages: [user, { role: 'assistant', tool_calls: [{ id: 'c', type: 'web' }] }] },
    path: 'messages[1].tool_calls[0].type',
    message: "Input should be 'function' or 'custom'",
  },
  {
    name: 'tool-call arguments not a string',
    example: {
      messages: [
        user,
        {
          role: 'assistant',
          tool_calls: [{ id: 'c', type: 'function', function: { name: 'f', arguments: { a: 1 } } }],
        },
      ],
    },
    path: 'messages[1].tool_calls[0].function.arguments',
    message: 'Input should be a valid string',
  },
  {
    name: 'tool-call arguments not JSON',
    example: {
      messages: [
        user,
        {
          role: 'assistant',
          tool_calls: [{ id: 'c', type: 'function', function: { name: 'f', arguments: '{a: 1' } }],
        },
      ],
    },
    path: 'messages[1].tool_calls[0].function.arguments',
    message: 'arguments must be a JSON text',
  },
  {
    name: 'tool message without tool_call_id',
    example: { messages: [user, call, { role: 'tool', content: '4' }, answer] },
    path: 'messages[2].tool_call_id',
    message: 'Field required',
  },
  {
    name: 'tool message answering no call',
    example: { messages: [user, call, { ...result, tool_call_id: 'c9' }, answer] },
    path: 'messages[2].tool_call_id',
    message: 'no earlier assistant message calls a tool with id "c9"',
  },
  {
    name: 'tools not a list',
    example: { ...good, tools: { type: 'function' } },
    path: 'tools',
    message: 'Input should be a valid list',
  },
  {
    name: 'tool of another type',
    example: { ...good, tools: [{ type: 'code_interpreter', function: { name: 'f' } }] },
    path: 'tools[0].type',
    message: "Input should be 'function'",
  },
  {
    name: 'function tool without name',
    example: { ...good, tools: [{ type: 'function', function: { description: 'x' } }] },
    path: 'tools[0].function.name',
    message: 'Field required',
  },
  {
    name: 'parameters not an object schema',
    example: {
      ...good,
      tools: [{ type: 'function', function: { name: 'f', parameters: { type: 'array' } } }],
    },
    path: 'tools[0].function.parameters',
    message: 'parameters must be a JSON Schema with "type": "object"',
  },
];

describe('SFT examples: one problem each, at the right line and path', () => {
  it.each(KINDS)('$name', async ({ example, path, message }) => {
    const text = [good, { messages: [user, call, result, answer], tools: [tool] }, example, good]
      .map((e) => JSON.stringify(e))
      .join('\n');
    const stats = emptySftStats();
    const checked = await checkDocuments(source('train.jsonl', text), (value) =>
      checkSftExample(value, stats),
    );
    expect(checked.problems).toHaveLength(1);
    expect(checked.problems[0]).toMatchObject({ line: 3, path });
    expect(checked.problems[0]!.message).toContain(message);
    expect(problemLines(checked)[0]).toMatch(
      new RegExp(`^train\\.jsonl:3: ${path.replace(/[[\]().]/g, '\\$&')}: `),
    );
    expect(stats).toEqual({ examples: 3, messages: 10, withTools: 1 });
  });

  it('counts at least 20 kinds', () => {
    expect(KINDS.length).toBeGreaterThanOrEqual(20);
  });

  it('accepts a conversation with tool calls, tool answers and tools', async () => {
    const stats = emptySftStats();
    const text = `${JSON.stringify({ messages: [user, call, result, answer], tools: [tool] })}\n`;
    const checked = await checkDocuments(source('ok.jsonl', text), (value) => checkSftExample(value, stats));
    expect(checked.problemCount).toBe(0);
    expect(stats).toEqual({ examples: 1, messages: 4, withTools: 1 });
  });
});
