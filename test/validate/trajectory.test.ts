import { describe, expect, it } from 'vitest';
import { problemLines } from '../../src/validate/check-file.js';
import { formatPath } from '../../src/validate/schema.js';
import { checkGroup, emptyGroupStats } from '../../src/validate/trajectory.js';
import { checkGroups, lineOf } from './helpers.js';

type Json = Record<string, unknown>;

// ---------------------------------------------------------------------------------------------------
// A realistic valid group, and builders for groups that differ from it in one place.

function baseMessages(): Json[] {
  return [
    { role: 'system', content: 'You are a careful math tutor.' },
    { role: 'user', content: [{ type: 'text', text: 'What is 2 + 2?' }] },
    {
      finish_reason: 'stop',
      index: 0,
      message: { role: 'assistant', content: 'It is 4.', refusal: null },
      logprobs: {
        content: [
          {
            token: 'It',
            logprob: -0.0123,
            bytes: [73, 116],
            top_logprobs: [
              { token: 'It', logprob: -0.0123, bytes: [73, 116] },
              { token: 'The', logprob: -4.5, bytes: null },
            ],
          },
        ],
        refusal: null,
      },
    },
  ];
}

function baseTrajectory(): Json {
  return {
    messages_and_choices: baseMessages(),
    tools: [
      {
        type: 'function',
        function: {
          name: 'calculator',
          description: 'Evaluates an arithmetic expression',
          parameters: { type: 'object', properties: { expression: { type: 'string' } } },
          strict: true,
        },
      },
    ],
    reward: 1,
    metrics: { correct: true, steps: 3 },
    metadata: { task_id: 'math-001', difficulty: 2, reviewed: false, notes: null },
    logs: ['sampled at temperature 0.7'],
    initial_policy_version: 0,
    final_policy_version: 1,
    start_time: '2025-03-04T05:06:07.890Z',
  };
}

function secondTrajectory(): Json {
  return {
    messages_and_choices: [
      { role: 'user', content: 'Hi' },
      { finish_reason: 'length', index: 0, message: { role: 'assistant', content: 'Hel' }, logprobs: null },
    ],
    reward: -0.5,
  };
}

function baseGroup(): Json {
  return { trajectories: [baseTrajectory(), secondTrajectory()] };
}

/** A group whose first trajectory has these fields replaced. */
function groupWith(overrides: Json): Json {
  return { trajectories: [{ ...baseTrajectory(), ...overrides }, secondTrajectory()] };
}

/** A group whose first trajectory has this entry appended to its messages_and_choices (as [3]). */
function withEntry(entry: unknown): Json {
  return groupWith({ messages_and_choices: [...baseMessages(), entry] });
}

const ENTRY = 'trajectories[0].messages_and_choices[3]';
const RAW = '"__RAW__"';

// ---------------------------------------------------------------------------------------------------
// The malformed inputs. Each produces exactly one problem: `path` (relative to the group), `type` (the
// pydantic-style issue type), a fragment of the message, and where it is in a pretty-printed file: the
// line holding `needle`, moved by `offset` lines (for a missing field, the line where the object that
// lacks it starts). `raw` replaces the JSON string "__RAW__" with text JSON.stringify cannot produce.

interface Case {
  name: string;
  group: unknown;
  path: string;
  type: string;
  message: string;
  needle: string;
  offset?: number;
  raw?: string;
}

const cases: Case[] = [
  {
    name: 'group not an object',
    group: 'not a group',
    path: '(top level)',
    type: 'model_type',
    message: 'Input should be an object, not the string "not a group"',
    needle: '"not a group"',
  },
  {
    name: 'group is an array',
    group: [{ trajectories: [] }],
    path: '(top level)',
    type: 'model_type',
    message: 'Input should be an object, not an array',
    needle: '"trajectories": []',
    offset: -2,
  },
  {
    name: 'missing trajectories',
    group: { metadata: { why: 'no trajectories here' } },
    path: 'trajectories',
    type: 'missing',
    message: 'Field required',
    needle: '"why": "no trajectories here"',
    offset: -2,
  },
  {
    name: 'trajectories not an array',
    group: { trajectories: { reward: 1 } },
    path: 'trajectories',
    type: 'list_type',
    message: 'Input should be a valid list, not an object',
    needle: '"trajectories": {',
  },
  {
    name: 'trajectories null',
    group: { trajectories: null },
    path: 'trajectories',
    type: 'list_type',
    message: 'Input should be a valid list, not null',
    needle: '"trajectories": null',
  },
  {
    name: 'trajectory not an object',
    group: { trajectories: [baseTrajectory(), 'oops, a string'] },
    path: 'trajectories[1]',
    type: 'model_type',
    message: 'Input should be an object, not the string "oops, a string"',
    needle: '"oops, a string"',
  },
  {
    name: 'reward as a string',
    group: groupWith({ reward: 'high' }),
    path: 'trajectories[0].reward',
    type: 'float_type',
    message: 'Input should be a valid number, not the string "high"',
    needle: '"reward": "high"',
  },
  {
    name: 'reward 1e999 (parses to Infinity)',
    group: groupWith({ reward: '__RAW__' }),
    raw: '1e999',
    path: 'trajectories[0].reward',
    type: 'finite_number',
    message: 'Input should be a finite number',
    needle: '"reward": 1e999',
  },
  {
    name: 'reward -1e999 (parses to -Infinity)',
    group: groupWith({ reward: '__RAW__' }),
    raw: '-1E+400',
    path: 'trajectories[0].reward',
    type: 'finite_number',
    message: 'Input should be a finite number',
    needle: '"reward": -1E+400',
  },
  {
    name: 'messages_and_choices not an array',
    group: groupWith({ messages_and_choices: 'hello' }),
    path: 'trajectories[0].messages_and_choices',
    type: 'list_type',
    message: 'Input should be a valid list, not the string "hello"',
    needle: '"messages_and_choices": "hello"',
  },
  {
    name: 'message not an object',
    group: withEntry(42),
    path: ENTRY,
    type: 'model_type',
    message: 'Input should be message (an object), not the number 42',
    needle: '        42\n',
  },
  {
    name: 'message without role',
    group: withEntry({ content: 'no role here' }),
    path: `${ENTRY}.role`,
    type: 'missing',
    message:
      "Field required (messages need a role: 'developer', 'system', 'user', 'assistant', 'tool' or 'function')",
    needle: '"content": "no role here"',
    offset: -1,
  },
  {
    name: 'unknown role',
    group: withEntry({ role: 'robot', content: 'beep' }),
    path: `${ENTRY}.role`,
    type: 'union_tag_invalid',
    message: `Input should be 'developer', 'system', 'user', 'assistant', 'tool' or 'function', not the string "robot"`,
    needle: '"role": "robot"',
  },
  {
    name: 'role not a string',
    group: withEntry({ role: 7, content: 'beep' }),
    path: `${ENTRY}.role`,
    type: 'union_tag_invalid',
    message: 'not the number 7',
    needle: '"role": 7',
  },
  {
    name: 'user message without content',
    group: withEntry({ role: 'user', name: 'lonely' }),
    path: `${ENTRY}.content`,
    type: 'missing',
    message: 'Field required',
    needle: '"name": "lonely"',
    offset: -2,
  },
  {
    name: 'system content of the wrong type',
    group: withEntry({ role: 'system', content: 12345 }),
    path: `${ENTRY}.content`,
    type: 'union_type',
    message: 'not the number 12345',
    needle: '"content": 12345',
  },
  {
    name: 'user content part of an unknown type',
    group: withEntry({ role: 'user', content: [{ type: 'video', video: 'clip.mp4' }] }),
    path: `${ENTRY}.content[0].type`,
    type: 'union_tag_invalid',
    message: `Input should be 'text', 'image_url', 'input_audio' or 'file', not the string "video"`,
    needle: '"type": "video"',
  },
  {
    name: 'refusal part in a user message',
    group: withEntry({ role: 'user', content: [{ type: 'refusal', refusal: 'no' }] }),
    path: `${ENTRY}.content[0].type`,
    type: 'union_tag_invalid',
    message: 'not the string "refusal"',
    needle: '"type": "refusal"',
  },
  {
    name: 'text part without text',
    group: withEntry({ role: 'developer', content: [{ type: 'text', txt: 'typo' }] }),
    path: `${ENTRY}.content[0].text`,
    type: 'missing',
    message: 'Field required',
    needle: '"txt": "typo"',
    offset: -2,
  },
  {
    name: 'image part without image_url.url',
    group: withEntry({ role: 'user', content: [{ type: 'image_url', image_url: { detail: 'low' } }] }),
    path: `${ENTRY}.content[0].image_url.url`,
    type: 'missing',
    message: 'Field required',
    needle: '"image_url": {',
  },
  {
    name: 'image part with an unknown detail',
    group: withEntry({
      role: 'user',
      content: [{ type: 'image_url', image_url: { url: 'https://x/y.png', detail: 'ultra' } }],
    }),
    path: `${ENTRY}.content[0].image_url.detail`,
    type: 'literal_error',
    message: `Input should be 'auto', 'low' or 'high', not the string "ultra"`,
    needle: '"detail": "ultra"',
  },
  {
    name: 'audio part with an unknown format',
    group: withEntry({
      role: 'user',
      content: [{ type: 'input_audio', input_audio: { data: 'AAA=', format: 'ogg' } }],
    }),
    path: `${ENTRY}.content[0].input_audio.format`,
    type: 'literal_error',
    message: `Input should be 'wav' or 'mp3', not the string "ogg"`,
    needle: '"format": "ogg"',
  },
  {
    name: 'tool message without tool_call_id',
    group: withEntry({ role: 'tool', content: 'result: 4' }),
    path: `${ENTRY}.tool_call_id`,
    type: 'missing',
    message: 'Field required',
    needle: '"content": "result: 4"',
    offset: -2,
  },
  {
    name: 'function message without name',
    group: withEntry({ role: 'function', content: null }),
    path: `${ENTRY}.name`,
    type: 'missing',
    message: 'Field required',
    needle: '"role": "function"',
    offset: -1,
  },
  {
    name: 'assistant tool_calls entry missing id',
    group: withEntry({
      role: 'assistant',
      content: null,
      tool_calls: [{ type: 'function', function: { name: 'calculator', arguments: '{"expression":"2+2"}' } }],
    }),
    path: `${ENTRY}.tool_calls[0].id`,
    type: 'missing',
    message: 'Field required',
    needle: '"tool_calls": [',
    offset: 1,
  },
  {
    name: 'assistant tool_calls entry with function.arguments not a string',
    group: withEntry({
      role: 'assistant',
      tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'calculator', arguments: { x: 1 } } }],
    }),
    path: `${ENTRY}.tool_calls[0].function.arguments`,
    type: 'string_type',
    message: 'Input should be a valid string, not an object',
    needle: '"arguments": {',
  },
  {
    name: 'assistant tool_calls entry without a type',
    group: withEntry({
      role: 'assistant',
      tool_calls: [{ id: 'call_untyped', function: { name: 'calculator', arguments: '{}' } }],
    }),
    path: `${ENTRY}.tool_calls[0].type`,
    type: 'missing',
    message: "Field required (tool calls need a type: 'function' or 'custom')",
    needle: '"id": "call_untyped"',
    offset: -1,
  },
  {
    name: 'custom tool call without input',
    group: withEntry({
      role: 'assistant',
      tool_calls: [{ id: 'c', type: 'custom', custom: { name: 'grep' } }],
    }),
    path: `${ENTRY}.tool_calls[0].custom.input`,
    type: 'missing',
    message: 'Field required',
    needle: '"custom": {',
  },
  {
    name: 'Choice with a bad finish_reason',
    group: withEntry({ finish_reason: 'done', index: 0, message: { role: 'assistant', content: 'x' } }),
    path: `${ENTRY}.finish_reason`,
    type: 'literal_error',
    message: `Input should be 'stop', 'length', 'tool_calls', 'content_filter' or 'function_call', not the string "done"`,
    needle: '"finish_reason": "done"',
  },
  {
    name: 'Choice without finish_reason',
    group: withEntry({ index: 0, message: { role: 'assistant', content: 'no finish' } }),
    path: `${ENTRY}.finish_reason`,
    type: 'missing',
    message: 'Field required',
    needle: '"content": "no finish"',
    offset: -4,
  },
  {
    name: 'Choice index not an integer',
    group: withEntry({ finish_reason: 'stop', index: 0.5, message: { role: 'assistant', content: 'x' } }),
    path: `${ENTRY}.index`,
    type: 'int_type',
    message: 'Input should be a valid integer, not the number 0.5',
    needle: '"index": 0.5',
  },
  {
    name: 'Choice message role not assistant',
    group: withEntry({
      finish_reason: 'stop',
      index: 0,
      message: { role: 'user', content: 'wrong speaker' },
    }),
    path: `${ENTRY}.message.role`,
    type: 'literal_error',
    message: `Input should be 'assistant', not the string "user"`,
    needle: '"content": "wrong speaker"',
    offset: -1,
  },
  {
    name: 'Choice message content not a string',
    group: withEntry({ finish_reason: 'stop', index: 0, message: { role: 'assistant', content: ['parts'] } }),
    path: `${ENTRY}.message.content`,
    type: 'string_type',
    message: 'Input should be a valid string, not an array',
    needle: '"parts"',
    offset: -1,
  },
  {
    name: 'logprobs token entry missing logprob',
    group: withEntry({
      finish_reason: 'stop',
      index: 0,
      message: { role: 'assistant', content: 'hi' },
      logprobs: { content: [{ token: 'hi-token', top_logprobs: [] }] },
    }),
    path: `${ENTRY}.logprobs.content[0].logprob`,
    type: 'missing',
    message: 'Field required',
    needle: '"token": "hi-token"',
    offset: -1,
  },
  {
    name: 'logprobs top_logprobs entry with a string logprob',
    group: withEntry({
      finish_reason: 'stop',
      index: 0,
      message: { role: 'assistant', content: 'hi' },
      logprobs: { content: [{ token: 'hi', logprob: -1, top_logprobs: [{ token: 'ho', logprob: '-2' }] }] },
    }),
    path: `${ENTRY}.logprobs.content[0].top_logprobs[0].logprob`,
    type: 'float_type',
    message: 'Input should be a valid number, not the string "-2"',
    needle: '"logprob": "-2"',
  },
  {
    name: 'logprobs bytes not integers',
    group: withEntry({
      finish_reason: 'stop',
      index: 0,
      message: { role: 'assistant', content: 'hi' },
      logprobs: { content: [{ token: 'hi', logprob: -1, bytes: [104, 10.5], top_logprobs: [] }] },
    }),
    path: `${ENTRY}.logprobs.content[0].bytes[1]`,
    type: 'int_type',
    message: 'Input should be a valid integer, not the number 10.5',
    needle: '10.5',
  },
  {
    name: 'tools entry with type not "function"',
    group: groupWith({ tools: [{ type: 'custom', function: { name: 'grep' } }] }),
    path: 'trajectories[0].tools[0].type',
    type: 'literal_error',
    message: `Input should be 'function', not the string "custom"`,
    needle: '"type": "custom"',
  },
  {
    name: 'function tool without name',
    group: groupWith({ tools: [{ type: 'function', function: { description: 'nameless tool' } }] }),
    path: 'trajectories[0].tools[0].function.name',
    type: 'missing',
    message: 'Field required',
    needle: '"description": "nameless tool"',
    offset: -1,
  },
  {
    name: 'function tool parameters not an object',
    group: groupWith({ tools: [{ type: 'function', function: { name: 'f', parameters: 'none' } }] }),
    path: 'trajectories[0].tools[0].function.parameters',
    type: 'dict_type',
    message: 'Input should be a valid dictionary, not the string "none"',
    needle: '"parameters": "none"',
  },
  {
    name: 'metrics value a string',
    group: groupWith({ metrics: { correct: true, accuracy: '0.9' } }),
    path: 'trajectories[0].metrics.accuracy',
    type: 'union_type',
    message: 'not the string "0.9"',
    needle: '"accuracy": "0.9"',
  },
  {
    name: 'metrics not an object',
    group: groupWith({ metrics: [1, 2] }),
    path: 'trajectories[0].metrics',
    type: 'dict_type',
    message: 'Input should be a valid dictionary, not an array',
    needle: '"metrics": [',
  },
  {
    name: 'metadata value an object',
    group: groupWith({ metadata: { task_id: 'm', nested: { a: 1 } } }),
    path: 'trajectories[0].metadata.nested',
    type: 'union_type',
    message: 'not an object',
    needle: '"nested": {',
  },
  {
    name: 'logs not strings',
    group: groupWith({ logs: ['ok', 987654] }),
    path: 'trajectories[0].logs[1]',
    type: 'string_type',
    message: 'Input should be a valid string, not the number 987654',
    needle: '987654',
  },
  {
    name: 'additional_histories entry missing messages_and_choices',
    group: groupWith({ additional_histories: [{ tools: null }] }),
    path: 'trajectories[0].additional_histories[0].messages_and_choices',
    type: 'missing',
    message: 'Field required',
    needle: '"tools": null',
    offset: -1,
  },
  {
    name: 'additional_histories entry with a bad message',
    group: groupWith({
      additional_histories: [{ messages_and_choices: [{ role: 'user', content: false }] }],
    }),
    path: 'trajectories[0].additional_histories[0].messages_and_choices[0].content',
    type: 'union_type',
    message: 'not a boolean',
    needle: '"content": false',
  },
  {
    name: 'initial_policy_version a float',
    group: groupWith({ initial_policy_version: 1.5 }),
    path: 'trajectories[0].initial_policy_version',
    type: 'int_type',
    message: 'Input should be a valid integer, not the number 1.5',
    needle: '"initial_policy_version": 1.5',
  },
  {
    name: 'final_policy_version a string',
    group: groupWith({ final_policy_version: '3' }),
    path: 'trajectories[0].final_policy_version',
    type: 'int_type',
    message: 'not the string "3"',
    needle: '"final_policy_version": "3"',
  },
  {
    name: 'start_time not a date-time',
    group: groupWith({ start_time: 'yesterday' }),
    path: 'trajectories[0].start_time',
    type: 'datetime_type',
    message: 'Input should be a valid datetime (ISO 8601), not the string "yesterday"',
    needle: '"start_time": "yesterday"',
  },
  {
    name: 'start_time with an hour out of range',
    group: groupWith({ start_time: '2025-01-01T25:00:00Z' }),
    path: 'trajectories[0].start_time',
    type: 'datetime_type',
    message: 'valid datetime',
    needle: '"start_time": "2025-01-01T25:00:00Z"',
  },
  {
    name: 'start_time a number',
    group: groupWith({ start_time: 1735689600 }),
    path: 'trajectories[0].start_time',
    type: 'datetime_type',
    message: 'not the number 1735689600',
    needle: '"start_time": 1735689600',
  },
  {
    name: 'group exceptions entry without traceback',
    group: { ...baseGroup(), exceptions: [{ type: 'ValueError', message: 'bad rollout' }] },
    path: 'exceptions[0].traceback',
    type: 'missing',
    message: 'Field required',
    needle: '"type": "ValueError"',
    offset: -1,
  },
  {
    name: 'group logs not an array',
    group: { ...baseGroup(), logs: 'one log line' },
    path: 'logs',
    type: 'list_type',
    message: 'not the string "one log line"',
    needle: '"logs": "one log line"',
  },
];

/** The file's text with "__RAW__" replaced by the case's raw JSON. */
const withRaw = (text: string, c: Case) => (c.raw === undefined ? text : text.replace(RAW, c.raw));

const jsonlFile = (c: Case) =>
  withRaw(
    [JSON.stringify(baseGroup()), '', JSON.stringify(c.group), JSON.stringify(baseGroup()), ''].join('\n'),
    c,
  );

/** The bad group is element [1] of a pretty-printed array, between two valid groups. */
const arrayFile = (c: Case) => withRaw(JSON.stringify([baseGroup(), c.group, baseGroup()], null, 2), c);

const inArray = (path: string) => (path === '(top level)' ? '[1]' : `[1].${path}`);

describe('malformed trajectory groups: one problem each, at the right line and path', () => {
  it('has many distinct kinds of malformed input', () => {
    expect(new Set(cases.map((c) => c.name)).size).toBe(cases.length);
    expect(cases.length).toBeGreaterThanOrEqual(40);
  });

  for (const c of cases) {
    describe(c.name, () => {
      it('checkGroup returns the one issue (path, type, message)', () => {
        const stats = emptyGroupStats();
        const value: unknown = c.raw === undefined ? c.group : JSON.parse(jsonlFile(c).split('\n')[2]!);
        const issues = checkGroup(value, stats);
        expect(issues.map((i) => [formatPath(i.path), i.type])).toEqual([[c.path, c.type]]);
        expect(issues[0]!.msg).toContain(c.message);
        expect(stats).toEqual(emptyGroupStats()); // an invalid group is not counted
      });

      it('JSON Lines: reported at the group line, with a path relative to the group', async () => {
        const { checked, stats } = await checkGroups('groups.jsonl', jsonlFile(c));
        expect(checked.format).toBe('jsonl');
        expect(checked.documents).toBe(3);
        expect(checked.problemCount).toBe(1);
        expect(checked.problems).toEqual([
          { line: 3, path: c.path, message: expect.stringContaining(c.message) },
        ]);
        expect(problemLines(checked)).toEqual([`groups.jsonl:3: ${c.path}: ${checked.problems[0]!.message}`]);
        expect(stats.groups).toBe(2);
        expect(checked.values).toEqual([]); // nothing is handed on when there is a problem
      });

      it('pretty-printed JSON array: reported at the line of the value, with the element index', async () => {
        const text = arrayFile(c);
        const line = lineOf(text, c.needle, c.offset);
        expect(line).toBeGreaterThan(50); // well inside the file: the first group alone spans 50 lines
        const { checked, stats } = await checkGroups('groups.json', text);
        expect(checked.format).toBe('array');
        expect(checked.documents).toBe(3);
        expect(checked.problems).toEqual([
          { line, path: inArray(c.path), message: expect.stringContaining(c.message) },
        ]);
        expect(checked.problemCount).toBe(1);
        expect(stats.groups).toBe(2);
      });
    });
  }
});

describe('hand-checked line numbers in a pretty-printed array', () => {
  // Independent of the lineOf oracle: the expected lines are read off the text by eye.
  const text = [
    '[', // 1
    '  {', // 2: [0]
    '    "trajectories": [', // 3
    '      {', // 4: [0].trajectories[0]
    '        "messages_and_choices": [', // 5
    '          {"role": "user", "content": "Hi"},', // 6
    '          {', // 7: [0].trajectories[0].messages_and_choices[1]
    '            "finish_reason": "stop",', // 8
    '            "index": 0', // 9
    '          }', // 10
    '        ],', // 11
    '        "reward": "1.0"', // 12
    '      }', // 13
    '    ]', // 14
    '  },', // 15
    '  {"trajectories": [{"logs": [1]}]}', // 16: [1]
    ']', // 17
  ].join('\n');

  it('reports a missing field at the line of its object and a bad value at its own line', async () => {
    const { checked } = await checkGroups('hand.json', text);
    expect(checked.problems).toEqual([
      { line: 7, path: '[0].trajectories[0].messages_and_choices[1].message', message: 'Field required' },
      {
        line: 12,
        path: '[0].trajectories[0].reward',
        message: 'Input should be a valid number, not the string "1.0"',
      },
      {
        line: 16,
        path: '[1].trajectories[0].logs[0]',
        message: 'Input should be a valid string, not the number 1',
      },
    ]);
  });
});

describe('invalid JSON', () => {
  it('JSON Lines: a trailing comma in an object, at the line of the group', async () => {
    const text = '{"trajectories": []}\n\n{"trajectories": [{"reward": 1,}]}\n{"trajectories": []}\n';
    const { checked, stats } = await checkGroups('bad.jsonl', text);
    expect(checked.problems).toEqual([
      { line: 3, message: 'invalid JSON: expected a property name in double quotes, found "}"' },
    ]);
    expect(checked.problems[0]).not.toHaveProperty('path');
    expect(problemLines(checked)).toEqual([
      'bad.jsonl:3: invalid JSON: expected a property name in double quotes, found "}"',
    ]);
    expect(checked.documents).toBe(3);
    expect(stats.groups).toBe(2);
  });

  it('JSON Lines: a truncated line', async () => {
    const { checked } = await checkGroups('bad.jsonl', '{"trajectories": []}\n{"trajectories": [\n');
    expect(checked.problems).toEqual([{ line: 2, message: expect.stringContaining('end of the input') }]);
  });

  it('JSON Lines: single quotes, NaN and a bare word', async () => {
    const text = ["{'trajectories': []}", '{"trajectories": [{"reward": NaN}]}', 'hello'].join('\n');
    const { checked } = await checkGroups('bad.jsonl', text);
    expect(checked.problems).toEqual([
      { line: 1, message: `invalid JSON: expected a property name in double quotes, found "'"` },
      { line: 2, message: 'invalid JSON: unexpected "N": expected a value' },
      { line: 3, message: 'invalid JSON: unexpected "h": expected a value' },
    ]);
  });

  it('JSON array: the line of the error inside a multi-line element', async () => {
    const text = [
      '[', // 1
      '  {"trajectories": []},', // 2
      '  {', // 3
      '    "trajectories": [', // 4
      '      {', // 5
      '        "reward": 0.5,', // 6
      '        "logs": ["a" "b"]', // 7: missing comma
      '      }', // 8
      '    ]', // 9
      '  }', // 10
      ']', // 11
    ].join('\n');
    const { checked, stats } = await checkGroups('bad.json', text);
    expect(checked.problems).toEqual([
      { line: 7, message: `invalid JSON: expected ',' or ']' after an array element, found "\\""` },
    ]);
    expect(checked.documents).toBe(2);
    expect(stats.groups).toBe(1);
  });

  it('JSON array: a raw line break inside a string, at the line it breaks', async () => {
    const text = '[\n  {\n    "trajectories": [\n      {"logs": ["first\nsecond"]}\n    ]\n  }\n]';
    const { checked } = await checkGroups('bad.json', text);
    expect(checked.problems[0]).toEqual({
      line: 4,
      message: 'invalid JSON: a control character (a raw line break?) inside a string',
    });
  });

  it('JSON array: two groups without a comma between them, at the second group', async () => {
    const text = '[\n  {"trajectories": []}\n  {"trajectories": []}\n]';
    const { checked } = await checkGroups('bad.json', text);
    expect(checked.problems).toEqual([
      { line: 3, message: 'invalid JSON: unexpected "{" after the end of the value' },
    ]);
  });

  it('JSON array: a trailing comma inside an element, at its line', async () => {
    const text = '[\n  {\n    "trajectories": [\n      {"reward": 1},\n    ]\n  }\n]';
    const { checked } = await checkGroups('bad.json', text);
    expect(checked.problems).toEqual([
      { line: 5, message: 'invalid JSON: unexpected "]": expected a value' },
    ]);
  });
});

describe('framing problems and empty files', () => {
  it('an unclosed array: the groups read are checked, then the framing is reported', async () => {
    const text = '[\n  {"trajectories": [{"reward": 1}]},\n  {"trajectories": [{"reward": "x"}]}';
    const { checked } = await checkGroups('open.json', text);
    expect(checked.problems).toEqual([
      {
        line: 3,
        path: '[1].trajectories[0].reward',
        message: 'Input should be a valid number, not the string "x"',
      },
      { line: 3, message: 'the JSON array is not closed: the file ends before its "]"' },
    ]);
    expect(problemLines(checked)[1]).toBe(
      'open.json:3: the JSON array is not closed: the file ends before its "]"',
    );
    expect(checked.values).toEqual([]);
  });

  it('an unclosed array that ends inside a group: invalid JSON and the framing', async () => {
    const text = '[\n  {"trajectories": []},\n  {\n    "trajectories": [';
    const { checked } = await checkGroups('open.json', text);
    expect(checked.problems).toEqual([
      { line: 4, message: expect.stringMatching(/^invalid JSON: .*end of the input/) },
      { line: 4, message: 'the JSON array is not closed: the file ends before its "]"' },
    ]);
  });

  it('text after the array', async () => {
    const text = '[\n  {"trajectories": []}\n]\n{"trajectories": []}\n';
    const { checked, stats } = await checkGroups('extra.json', text);
    expect(checked.problems).toEqual([
      { line: 4, message: 'unexpected text after the end of the JSON array' },
    ]);
    expect(checked.documents).toBe(1);
    expect(stats.groups).toBe(1);
    expect(checked.values).toEqual([]);
  });

  it('an empty file has no documents and (at this level) no problems', async () => {
    for (const text of ['', '\n\n', '\ufeff']) {
      const { checked, stats } = await checkGroups('empty.jsonl', text);
      expect(checked).toEqual({
        name: 'empty.jsonl',
        format: 'jsonl',
        documents: 0,
        problems: [],
        problemCount: 0,
        values: [],
      });
      expect(stats).toEqual(emptyGroupStats());
    }
  });

  it('an empty array has no documents and no problems', async () => {
    const { checked } = await checkGroups('empty.json', '[\n]\n');
    expect(checked.format).toBe('array');
    expect(checked.documents).toBe(0);
    expect(checked.problemCount).toBe(0);
  });
});

describe('valid groups', () => {
  /** Every message kind and optional field the schema knows, all valid. */
  function fullGroup(): Json {
    return {
      trajectories: [
        {
          messages_and_choices: [
            { role: 'developer', content: [{ type: 'text', text: 'Be brief.' }], name: 'ops' },
            ...baseMessages(),
            {
              role: 'user',
              content: [
                { type: 'text', text: 'Look:' },
                {
                  type: 'image_url',
                  image_url: { url: 'data:image/png;base64,iVBORw0KGgo=', detail: 'auto' },
                },
                { type: 'input_audio', input_audio: { data: 'UklGRg==', format: 'wav' } },
                { type: 'file', file: { file_id: 'file-1', filename: 'notes.txt' } },
              ],
              name: 'alice',
            },
            {
              role: 'assistant',
              content: [
                { type: 'text', text: 'Calling a tool.' },
                { type: 'refusal', refusal: 'not that part' },
              ],
              refusal: null,
              audio: null,
              function_call: null,
              tool_calls: [
                {
                  id: 'call_1',
                  type: 'function',
                  function: { name: 'calculator', arguments: '{"expression":"2+2"}' },
                },
                { id: 'call_2', type: 'custom', custom: { name: 'grep', input: 'foo' } },
              ],
            },
            { role: 'tool', content: [{ type: 'text', text: '4' }], tool_call_id: 'call_1' },
            { role: 'function', content: null, name: 'calculator' },
            { role: 'assistant', content: null },
            {
              finish_reason: 'tool_calls',
              index: 1,
              message: {
                role: 'assistant',
                content: null,
                refusal: null,
                annotations: [
                  {
                    type: 'url_citation',
                    url_citation: { start_index: 0, end_index: 4, title: 'Docs', url: 'https://example.com' },
                  },
                ],
                audio: null,
                function_call: { name: 'calculator', arguments: '{}' },
                tool_calls: [
                  { id: 'call_3', type: 'function', function: { name: 'calculator', arguments: '{}' } },
                ],
              },
              logprobs: { content: null, refusal: [] },
              extra_field_from_a_newer_api: { ok: true },
            },
          ],
          tools: [
            { type: 'function', function: { name: 'calculator', strict: null } },
            { type: 'function', function: { name: 'grep', description: 'search', parameters: {} } },
          ],
          additional_histories: [
            { messages_and_choices: [{ role: 'user', content: 'side' }], tools: null },
            { messages_and_choices: [] },
          ],
          reward: -0.75,
          initial_policy_version: null,
          final_policy_version: 12,
          metrics: { accuracy: 0.5, passed: false, count: 3 },
          metadata: { a: 1, b: 'two', c: true, d: null },
          logs: [],
          start_time: '2025-03-04 05:06:07+01:00',
          exchanges: { anything: [1, { goes: true }] },
        },
        {},
        { reward: 2.5, start_time: '2025-03-04T05:06Z' },
      ],
      exceptions: [{ type: 'TimeoutError', message: 'rollout 4 timed out', traceback: 'Traceback ...' }],
      metadata: { free: { form: ['yes'] } },
      metrics: { timeouts: 1, complete: false },
      logs: ['group started'],
    };
  }

  it('a realistic group (system/user messages, a Choice with logprobs, tools, metrics, metadata) passes', async () => {
    const stats = emptyGroupStats();
    expect(checkGroup(baseGroup(), stats)).toEqual([]);
    expect(stats).toEqual({ groups: 1, trajectories: 2, minReward: -0.5, maxReward: 1 });
  });

  it('a group using every message kind and optional field passes', () => {
    expect(checkGroup(fullGroup(), emptyGroupStats())).toEqual([]);
  });

  it('valid files in both layouts: no problems, the groups handed on, the stats right', async () => {
    const groups = [baseGroup(), fullGroup(), { trajectories: [{ reward: 7 }, { reward: -3 }] }];
    const jsonl = `${groups.map((g) => JSON.stringify(g)).join('\r\n')}\r\n`;
    const array = JSON.stringify(groups, null, 2);
    for (const [name, text] of [
      ['ok.jsonl', jsonl],
      ['ok.json', array],
    ]) {
      const { checked, stats } = await checkGroups(name!, text!);
      expect(checked.problems).toEqual([]);
      expect(checked.problemCount).toBe(0);
      expect(checked.documents).toBe(3);
      expect(checked.values).toEqual(groups);
      expect(stats).toEqual({ groups: 3, trajectories: 7, minReward: -3, maxReward: 7 });
    }
  });
});

describe('stats', () => {
  it('count groups and trajectories and track the reward range, a missing reward counting as 0', async () => {
    const text = [
      '{"trajectories": [{"reward": 0.5}, {"reward": 0.25}]}',
      '{"trajectories": [{}]}',
      '{"trajectories": [{"reward": 0.75}]}',
    ].join('\n');
    const { stats } = await checkGroups('s.jsonl', text);
    expect(stats).toEqual({ groups: 3, trajectories: 4, minReward: 0, maxReward: 0.75 });
  });

  it('leave the reward range undefined when there are no trajectories', async () => {
    const { checked, stats } = await checkGroups('s.jsonl', '{"trajectories": []}\n{"trajectories": []}\n');
    expect(checked.problemCount).toBe(0);
    expect(stats).toEqual({ groups: 2, trajectories: 0, minReward: undefined, maxReward: undefined });
  });

  it('leave out invalid groups', async () => {
    const text = [
      '{"trajectories": [{"reward": -10}, {"reward": "x"}]}',
      '{"trajectories": [{"reward": 2}, {"reward": 3}]}',
      '{"trajectories": [{"reward": 100}], "logs": [1]}',
    ].join('\n');
    const { checked, stats } = await checkGroups('s.jsonl', text);
    expect(checked.problemCount).toBe(2);
    expect(stats).toEqual({ groups: 1, trajectories: 2, minReward: 2, maxReward: 3 });
  });
});

describe('known bugs', () => {
  // chat-schema.ts, tagged(): the variant is looked up with `variants[v[tag]]` on a plain object
  // literal, so a discriminator naming an Object.prototype member finds that member instead of no
  // variant. "constructor" and "toString" resolve to functions that push no issue, so the message is
  // accepted; "hasOwnProperty", "valueOf" and "__proto__" make the check throw a TypeError, which
  // aborts the whole file check instead of reporting a problem.
  for (const role of ['constructor', 'toString', 'hasOwnProperty', 'valueOf', '__proto__']) {
    it(`rejects the role "${role}" like any other unknown role`, async () => {
      const text = `{"trajectories": [{"messages_and_choices": [{"role": "${role}", "content": "x"}]}]}\n`;
      const { checked } = await checkGroups('proto.jsonl', text);
      expect(checked.problems).toEqual([
        {
          line: 1,
          path: 'trajectories[0].messages_and_choices[0].role',
          message: expect.stringContaining(`not the string "${role}"`),
        },
      ]);
    });
  }

  it('rejects the content part type "constructor"', async () => {
    const text =
      '{"trajectories": [{"messages_and_choices": [{"role": "user", "content": [{"type": "constructor"}]}]}]}';
    const { checked } = await checkGroups('proto.jsonl', text);
    expect(checked.problems).toEqual([
      expect.objectContaining({ line: 1, path: 'trajectories[0].messages_and_choices[0].content[0].type' }),
    ]);
  });

  it('rejects the tool call type "toString"', async () => {
    const entry = { role: 'assistant', tool_calls: [{ id: 'c', type: 'toString' }] };
    const { checked } = await checkGroups('proto.jsonl', JSON.stringify(withEntry(entry)));
    expect(checked.problems).toEqual([
      expect.objectContaining({ line: 1, path: `${ENTRY}.tool_calls[0].type` }),
    ]);
  });

  // schema.ts, dateTime: the day is never checked against the month; Date.parse rolls 2023-02-29 over
  // to March 1 instead of refusing it, so impossible dates pass. The platform (pydantic) refuses them
  // ("day value is outside expected range"), and a date-time in the OpenAPI sense must be a real date.
  for (const when of ['2023-02-29T12:00:00Z', '2025-04-31T00:00:00Z', '2025-06-31 08:00']) {
    it(`rejects the impossible date ${when}`, () => {
      const issues = checkGroup({ trajectories: [{ start_time: when }] }, emptyGroupStats());
      expect(issues.map((i) => [formatPath(i.path), i.type])).toEqual([
        ['trajectories[0].start_time', 'datetime_type'],
      ]);
    });
  }
});
