// Structured output from the emulated chat completions (src/emulator/chat/structured-output.ts): with a
// `json_schema` response format the reply is a valid instance of the schema — checked here by ajv, an
// independent validator, over real HTTP on both APIs, whole and streamed — the same for the same seed;
// `json_object` gives a JSON object; a schema the emulator cannot generate from gets a 422 naming the
// keyword. A property test generates schemas of the supported subset and validates every instance.

import { Ajv2020 } from 'ajv/dist/2020.js';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  responseFormatProblems,
  structuredFormat,
  structuredTokens,
} from '../../src/emulator/chat/structured-output.js';
import { send, type TestEmulator, useEmulator } from '../helpers/emulator.js';

// One emulator for the file: the Training API streams too (--training-chat-stream), as vLLM does.
const { emu } = useEmulator({ trainingChatStream: true, fresh: 'file' });

// ownProperties: an instance without `toString` has none (ajv would otherwise find the inherited one).
const ajv2020 = new Ajv2020({ strict: false, allErrors: true, ownProperties: true });

/**
 * ajv skips a property named `__proto__` altogether (it neither checks its value nor counts it against
 * additionalProperties: false), so schema and instance are given to it with that string spelled
 * otherwise wherever it is, in their JSON text: the same check, the name being only a string.
 */
const renamed = (value: unknown) =>
  JSON.parse(JSON.stringify(value).replaceAll('"__proto__"', '"__proto_name__"'));
const ajv = {
  compile(schema: object) {
    const validate = ajv2020.compile(renamed(schema));
    const check = (instance: unknown) => validate(renamed(instance));
    return Object.defineProperty(check, 'errors', { get: () => validate.errors }) as typeof check & {
      errors: typeof validate.errors;
    };
  },
  validate: (schema: object, instance: unknown) => ajv2020.validate(renamed(schema), renamed(instance)),
};
const MODEL = 'openai/gpt-oss-20b';
const messages = [{ role: 'user', content: 'Judge these two trajectories' }];

type Api = 'inference' | 'training';
const models: Record<Api, string> = { inference: MODEL, training: '' };

async function trainedModel(target: TestEmulator): Promise<string> {
  const res = await target.api('POST', '/preview/models', {
    project: 'p',
    name: 'structured',
    base_model: 'OpenPipe/Qwen3-14B-Instruct',
    return_existing: true,
  });
  await target.control('POST', `/models/${res.body.id}/checkpoints`, { count: 1 });
  return 'wandb-artifact:///local/p/structured';
}

beforeAll(async () => {
  models.training = await trainedModel(emu);
});

/**
 * One chat request on a connection of its own (helpers/emulator.ts send: the emulator runs in this
 * worker, and a long generation here can outlast a pooled connection's keep-alive).
 */
async function chat(api: Api, body: Record<string, unknown>) {
  return send(
    `${emu.origin}/${api}/v1/chat/completions`,
    'POST',
    { authorization: `Bearer ${emu.key}`, 'content-type': 'application/json' },
    JSON.stringify({ model: models[api], messages, ...body }),
  );
}

const jsonSchema = (schema: unknown, name = 'answer') => ({
  type: 'json_schema',
  json_schema: { name, strict: true, schema },
});

/** The reply, whole: its content, finish reason and usage. */
async function whole(api: Api, body: Record<string, unknown>) {
  const r = await chat(api, body);
  expect(r.status, r.text).toBe(200);
  const parsed = JSON.parse(r.text);
  return {
    content: parsed.choices[0].message.content as string,
    finish: parsed.choices[0].finish_reason as string,
    usage: parsed.usage as { completion_tokens: number; prompt_tokens: number; total_tokens: number },
  };
}

/** The reply, streamed: the deltas joined, the finish reason, the usage chunk and the token chunks. */
async function streamed(api: Api, body: Record<string, unknown>) {
  const r = await chat(api, { ...body, stream: true, stream_options: { include_usage: true } });
  expect([r.status, r.type]).toEqual([200, 'text/event-stream']);
  const events = r.text
    .split('\n\n')
    .filter(Boolean)
    .map((e) => e.replace(/^data: /, ''));
  expect(events.at(-1)).toBe('[DONE]');
  const chunks = events.slice(0, -1).map((e) => JSON.parse(e));
  const deltas = chunks.flatMap((c) =>
    c.choices.map((x: { delta: { content?: string } }) => x.delta.content ?? ''),
  );
  return {
    content: deltas.join(''),
    tokens: deltas.filter((d: string) => d !== '').length,
    finish: chunks
      .flatMap((c) => c.choices.map((x: { finish_reason: string | null }) => x.finish_reason))
      .at(-1),
    usage: chunks.at(-1).usage,
  };
}

const judge = {
  type: 'object',
  properties: Object.fromEntries(
    ['trajectory_1', 'trajectory_2', 'trajectory_3'].map((k) => [
      k,
      {
        type: 'object',
        properties: { explanation: { type: 'string' }, score: { type: 'number', minimum: 0, maximum: 1 } },
        required: ['explanation', 'score'],
        additionalProperties: false,
      },
    ]),
  ),
  required: ['trajectory_1', 'trajectory_2', 'trajectory_3'],
  additionalProperties: false,
};

const SCHEMAS: Record<string, unknown> = {
  judge,
  nested: {
    type: 'object',
    properties: {
      user: {
        type: 'object',
        properties: {
          name: { type: 'string', minLength: 3, maxLength: 12 },
          address: {
            type: 'object',
            properties: { city: { type: 'string' }, zip: { type: ['string', 'null'] } },
            required: ['city'],
          },
        },
        required: ['name', 'address'],
        additionalProperties: false,
      },
      note: { type: 'string', description: 'ignored', title: 'Note' },
    },
    required: ['user'],
    additionalProperties: false,
  },
  arrays: {
    type: 'object',
    properties: {
      tags: { type: 'array', items: { type: 'string', maxLength: 5 }, minItems: 2, maxItems: 4 },
      exact: { type: 'array', items: { type: 'integer' }, minItems: 3, maxItems: 3 },
      tuple: {
        type: 'array',
        prefixItems: [{ type: 'string' }, { type: 'boolean' }],
        items: false,
        minItems: 2,
      },
      empty: { type: 'array', maxItems: 0 },
    },
    required: ['tags', 'exact', 'tuple', 'empty'],
  },
  enums: {
    type: 'object',
    properties: {
      verdict: { type: 'string', enum: ['pass', 'fail', 'unsure'] },
      mixed: { enum: [1, 'two', null, { three: 3 }] },
      filtered: { type: 'string', enum: [1, 'only', true] },
      fixed: { const: 'v1' },
    },
    required: ['verdict', 'mixed', 'filtered', 'fixed'],
  },
  anyOf: {
    type: 'object',
    properties: {
      value: { anyOf: [{ type: 'string' }, { type: 'integer', minimum: 100 }, { type: 'null' }] },
      exclusive: { oneOf: [{ type: 'integer' }, { type: 'number' }] },
    },
    required: ['value', 'exclusive'],
  },
  recursion: {
    $defs: {
      node: {
        type: 'object',
        properties: {
          label: { type: 'string' },
          children: { type: 'array', items: { $ref: '#/$defs/node' } },
          next: { anyOf: [{ $ref: '#/$defs/node' }, { type: 'null' }] },
        },
        required: ['label', 'children', 'next'],
        additionalProperties: false,
      },
    },
    type: 'object',
    properties: { root: { $ref: '#/$defs/node' } },
    required: ['root'],
  },
  definitions: {
    definitions: { 'a/b': { type: 'integer', minimum: 5, maximum: 5 }, 'sp ace': { type: 'boolean' } },
    type: 'object',
    properties: { five: { $ref: '#/definitions/a~1b' }, flag: { $ref: '#/definitions/sp%20ace' } },
    required: ['five', 'flag'],
  },
  numbers: {
    type: 'object',
    properties: {
      small: { type: 'integer', minimum: -3, maximum: -1 },
      big: { type: 'integer', minimum: 1000 },
      stepped: { type: 'integer', multipleOf: 7, minimum: 20, maximum: 40 },
      open: { type: 'number', exclusiveMinimum: 0, exclusiveMaximum: 1 },
      closed: { type: 'number', minimum: 0.5, maximum: 0.5 },
      far: { type: 'number', exclusiveMinimum: 10 },
      below: { type: 'number', exclusiveMaximum: -5 },
      score: { type: 'number', minimum: 0, maximum: 1 },
    },
    required: ['small', 'big', 'stepped', 'open', 'closed', 'far', 'below', 'score'],
    additionalProperties: false,
  },
  names: JSON.parse(
    '{"type":"object","properties":{"__proto__":{"type":"string"},"constructor":{"type":"integer"},' +
      '"toString":{"type":"boolean"},"hasOwnProperty":{"type":"null"}},' +
      '"required":["__proto__","constructor","toString","hasOwnProperty"],"additionalProperties":false}',
  ),
  rootArray: { type: 'array', items: { type: 'number', minimum: 0, maximum: 1 }, minItems: 1 },
};

describe('json_schema: valid instances on both APIs, whole and streamed', () => {
  for (const [label, schema] of Object.entries(SCHEMAS)) {
    for (const api of ['inference', 'training'] as const) {
      it(`${label} (${api})`, async () => {
        const validate = ajv.compile(schema as object);
        const body = { response_format: jsonSchema(schema), seed: 7 };
        const one = await whole(api, body);
        const instance = JSON.parse(one.content);
        expect(validate(instance), JSON.stringify(validate.errors)).toBe(true);
        expect(one.finish).toBe('stop');
        expect(one.usage.total_tokens).toBe(one.usage.prompt_tokens + one.usage.completion_tokens);
        const stream = await streamed(api, body);
        expect(stream.content).toBe(one.content);
        expect(stream.finish).toBe('stop');
        expect(stream.usage).toEqual(one.usage);
        expect(stream.tokens).toBe(one.usage.completion_tokens);
        // Other seeds: valid too.
        for (const seed of [1, 2, 3]) {
          const other = await whole(api, { ...body, seed });
          expect(validate(JSON.parse(other.content)), other.content).toBe(true);
        }
      });
    }
  }

  it('the judge scores are in [0, 1], with an explanation each', async () => {
    const { content } = await whole('inference', { response_format: jsonSchema(judge, 'judge') });
    const parsed = JSON.parse(content);
    for (const key of ['trajectory_1', 'trajectory_2', 'trajectory_3']) {
      expect(Object.keys(parsed[key]).sort()).toEqual(['explanation', 'score']);
      expect(parsed[key].score).toBeGreaterThanOrEqual(0);
      expect(parsed[key].score).toBeLessThanOrEqual(1);
      expect(parsed[key].explanation).toMatch(/^[A-Za-z]/);
    }
  });

  it('names like __proto__ and constructor are ordinary names in the reply', async () => {
    const { content } = await whole('inference', { response_format: jsonSchema(SCHEMAS.names) });
    const parsed = JSON.parse(content);
    expect(Object.keys(parsed).sort()).toEqual(['__proto__', 'constructor', 'hasOwnProperty', 'toString']);
    expect(typeof parsed.constructor).toBe('number');
    expect(Object.getPrototypeOf(parsed)).toBe(Object.prototype);
  });

  it('n choices are each an instance', async () => {
    const r = await chat('inference', { response_format: jsonSchema(judge), n: 3, seed: 4 });
    const validate = ajv.compile(judge);
    const choices = JSON.parse(r.text).choices as Array<{ message: { content: string } }>;
    expect(choices).toHaveLength(3);
    for (const c of choices) expect(validate(JSON.parse(c.message.content))).toBe(true);
  });
});

describe('determinism', () => {
  it('the same request and seed give the same content; other seeds give other instances', async () => {
    for (const api of ['inference', 'training'] as const) {
      const body = { response_format: jsonSchema(SCHEMAS.nested), seed: 42 };
      const a = await whole(api, body);
      const b = await whole(api, body);
      expect(b.content).toBe(a.content);
      const others = new Set<string>();
      for (const seed of [1, 2, 3, 4, 5, 6]) others.add((await whole(api, { ...body, seed })).content);
      expect(others.size).toBeGreaterThan(1);
    }
  });

  it('without a seed the reply is deterministic too', async () => {
    const body = { response_format: jsonSchema(judge) };
    expect((await whole('inference', body)).content).toBe((await whole('inference', body)).content);
  });
});

describe('json_object', () => {
  for (const api of ['inference', 'training'] as const) {
    it(`answers a JSON object, the same for the same request (${api})`, async () => {
      const body = { response_format: { type: 'json_object' }, seed: 3 };
      const a = await whole(api, body);
      const parsed = JSON.parse(a.content);
      expect(typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)).toBe(true);
      expect(Object.keys(parsed).length).toBeGreaterThan(0);
      expect((await whole(api, body)).content).toBe(a.content);
      expect((await streamed(api, body)).content).toBe(a.content);
      expect(a.finish).toBe('stop');
    });
  }

  it('a text response format is the ordinary text', async () => {
    const { content } = await whole('inference', { response_format: { type: 'text' } });
    expect(() => JSON.parse(content)).toThrow();
  });

  it('max_tokens cuts the JSON as it cuts text, with finish_reason length', async () => {
    const r = await whole('inference', { response_format: jsonSchema(judge), max_tokens: 5 });
    expect([r.finish, r.usage.completion_tokens]).toEqual(['length', 5]);
  });
});

/** A json_schema response format with `schema`, and the location a 422 should name (under schema). */
const REFUSED: Array<[string, unknown, Array<string | number>]> = [
  [
    'pattern',
    { type: 'object', properties: { score: { type: 'string', pattern: '^a' } } },
    ['properties', 'score', 'pattern'],
  ],
  [
    'format',
    { type: 'object', properties: { d: { type: 'string', format: 'date' } } },
    ['properties', 'd', 'format'],
  ],
  ['allOf', { allOf: [{ type: 'object' }] }, ['allOf']],
  ['not', { type: 'object', properties: { x: { not: { type: 'null' } } } }, ['properties', 'x', 'not']],
  ['minimum > maximum', { type: 'number', minimum: 2, maximum: 1 }, ['minimum']],
  ['no integer in range', { type: 'integer', minimum: 0.1, maximum: 0.9 }, ['minimum']],
  ['empty exclusive range', { type: 'number', exclusiveMinimum: 1, maximum: 1 }, ['maximum']],
  ['no multiple in range', { type: 'integer', multipleOf: 10, minimum: 1, maximum: 9 }, ['minimum']],
  ['fractional multipleOf', { type: 'number', multipleOf: 0.1 }, ['multipleOf']],
  ['minLength > maxLength', { type: 'string', minLength: 5, maxLength: 2 }, ['minLength']],
  ['minItems > maxItems', { type: 'array', minItems: 3, maxItems: 1 }, ['minItems']],
  [
    'unknown $ref',
    { type: 'object', properties: { a: { $ref: '#/$defs/missing' } } },
    ['properties', 'a', '$ref'],
  ],
  ['remote $ref', { $ref: 'https://example.com/schema.json' }, ['$ref']],
  ['unknown type', { type: 'object', properties: { a: { type: 'decimal' } } }, ['properties', 'a', 'type']],
  ['no enum value fits', { type: 'string', enum: [1, 2] }, ['enum']],
  ['empty enum', { enum: [] }, ['enum']],
  ['a non-object schema', 'string', []],
  ['an array schema', [{ type: 'string' }], []],
  [
    'recursion with no way out',
    {
      $defs: { a: { type: 'object', properties: { a: { $ref: '#/$defs/a' } }, required: ['a'] } },
      $ref: '#/$defs/a',
    },
    [],
  ],
  ['a reference to itself', { $defs: { a: { $ref: '#/$defs/a' } }, $ref: '#/$defs/a' }, []],
  [
    'required outside properties, none allowed',
    { type: 'object', properties: {}, required: ['x'], additionalProperties: false },
    ['required', 0],
  ],
  ['a false schema', { type: 'object', properties: { x: false } }, ['properties', 'x']],
  ['$ref with siblings', { $defs: { a: { type: 'string' } }, $ref: '#/$defs/a', type: 'string' }, ['type']],
];

const deep = (levels: number): unknown =>
  levels === 0 ? { type: 'string' } : { type: 'object', properties: { x: deep(levels - 1) } };

describe('json_schema requests the emulator cannot answer: 422 naming the location', () => {
  for (const api of ['inference', 'training'] as const) {
    it(`refuses unsupported keywords and unsatisfiable schemas (${api})`, async () => {
      for (const [label, schema, loc] of REFUSED) {
        const r = await chat(api, { response_format: jsonSchema(schema) });
        expect([label, r.status]).toEqual([label, 422]);
        const detail = JSON.parse(r.text).detail as Array<{ loc: unknown[]; type: string; msg: string }>;
        expect([label, detail[0]!.loc]).toEqual([
          label,
          ['body', 'response_format', 'json_schema', 'schema', ...loc],
        ]);
        expect([label, detail[0]!.type]).toEqual([label, 'unsupported_parameter']);
        expect(detail[0]!.msg.length).toBeGreaterThan(5);
      }
    });
  }

  it('names pattern as unsupported in the detail message', async () => {
    const r = await chat('inference', { response_format: jsonSchema(REFUSED[0]![1]) });
    expect(JSON.parse(r.text).detail[0].msg).toMatch(/pattern is not supported/);
  });

  it('refuses a missing or invalid name, a missing schema and a missing json_schema', async () => {
    const cases: Array<[unknown, Array<string | number>, string]> = [
      [{ schema: judge }, ['json_schema', 'name'], 'missing'],
      [{ name: 'has space', schema: judge }, ['json_schema', 'name'], 'string_pattern_mismatch'],
      [{ name: 'x'.repeat(65), schema: judge }, ['json_schema', 'name'], 'string_pattern_mismatch'],
      [{ name: 'ok', strict: 'yes', schema: judge }, ['json_schema', 'strict'], 'bool_type'],
      [{ name: 'ok' }, ['json_schema', 'schema'], 'missing'],
      [undefined, ['json_schema'], 'missing'],
    ];
    for (const api of ['inference', 'training'] as const) {
      for (const [spec, loc, type] of cases) {
        const r = await chat(api, { response_format: { type: 'json_schema', json_schema: spec } });
        expect(r.status).toBe(422);
        const item = JSON.parse(r.text).detail[0];
        expect([item.loc, item.type]).toEqual([['body', 'response_format', ...loc], type]);
      }
    }
  });

  it('bounds the schema: depth, properties', async () => {
    const tooDeep = await chat('inference', { response_format: jsonSchema(deep(40)) });
    expect(tooDeep.status).toBe(422);
    expect(JSON.parse(tooDeep.text).detail[0].msg).toMatch(/deeper than 32/);
    const ok = await chat('inference', { response_format: jsonSchema(deep(30)) });
    expect(ok.status).toBe(200);
    const wide = {
      type: 'object',
      properties: Object.fromEntries(Array.from({ length: 5001 }, (_, i) => [`p${i}`, { type: 'null' }])),
    };
    const tooWide = await chat('inference', { response_format: jsonSchema(wide) });
    expect(tooWide.status).toBe(422);
    expect(JSON.parse(tooWide.text).detail[0].msg).toMatch(/more than 5000 properties/);
  });

  it('a big smallest instance is refused; a big optional one stays small', async () => {
    const big = {
      type: 'array',
      minItems: 1000,
      items: { type: 'array', minItems: 1000, items: { type: 'null' } },
    };
    expect((await chat('inference', { response_format: jsonSchema(big) })).status).toBe(422);
    const wide = {
      type: 'object',
      properties: Object.fromEntries(
        Array.from({ length: 1500 }, (_, i) => [`p${i}`, { type: 'array', items: { type: 'string' } }]),
      ),
    };
    const r = await whole('inference', { response_format: jsonSchema(wide) });
    expect(ajv.validate(wide, JSON.parse(r.content))).toBe(true);
    expect(r.content.length).toBeLessThan(200_000);
  });
});

// ---- Property: every schema of the supported subset gives valid instances ----

const word = fc.constantFrom('a', 'b', 'score', '__proto__', 'constructor', 'toString', 'x y', 'é');
const leaf = fc.oneof(
  fc.constant({ type: 'string' }),
  fc
    .tuple(fc.nat(6), fc.nat(8))
    .map(([min, extra]) => ({ type: 'string', minLength: min, maxLength: min + extra })),
  fc.constant({ type: 'boolean' }),
  fc.constant({ type: 'null' }),
  fc
    .tuple(fc.integer({ min: -50, max: 50 }), fc.nat(30), fc.integer({ min: 1, max: 5 }))
    .map(([lo, span, m]) => ({ type: 'integer', minimum: lo, maximum: lo + span + m, multipleOf: m })),
  fc
    .tuple(
      fc.double({ min: -5, max: 5, noNaN: true }),
      fc.double({ min: 0.001, max: 5, noNaN: true }),
      fc.boolean(),
    )
    .map(([lo, span, ex]) =>
      ex
        ? { type: 'number', exclusiveMinimum: lo, exclusiveMaximum: lo + span }
        : { type: 'number', minimum: lo, maximum: lo + span },
    ),
  fc.constant({ type: 'number', minimum: 0, maximum: 1 }),
  fc
    .uniqueArray(fc.oneof(word, fc.integer(), fc.constant(null)), { minLength: 1, maxLength: 4 })
    .map((e) => ({ enum: e })),
  fc.oneof(word, fc.integer()).map((c) => ({ const: c })),
  fc.constant({ type: ['string', 'null'] }),
  fc.constant({ $ref: '#/$defs/tree' }),
);

const { schema: schemaArb } = fc.letrec<{ schema: unknown }>((tie) => ({
  schema: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    leaf,
    fc
      .tuple(fc.dictionary(word, tie('schema'), { maxKeys: 4 }), fc.boolean(), fc.boolean())
      .map(([properties, allRequired, closed]) => ({
        type: 'object',
        properties,
        required: allRequired ? Object.keys(properties) : Object.keys(properties).slice(0, 1),
        additionalProperties: !closed,
      })),
    fc
      .tuple(tie('schema'), fc.nat(3), fc.nat(3))
      .map(([items, min, extra]) => ({ type: 'array', items, minItems: min, maxItems: min + extra })),
    fc
      .array(tie('schema'), { minLength: 1, maxLength: 3 })
      .map((prefixItems) => ({ type: 'array', prefixItems })),
    fc.array(tie('schema'), { minLength: 1, maxLength: 3 }).map((anyOf) => ({ anyOf })),
    fc
      .tuple(
        fc.constantFrom({ type: 'string' }, { type: 'integer' }),
        fc.constantFrom({ type: 'number' }, { type: 'null' }),
      )
      .map((oneOf) => ({ oneOf })),
  ),
}));

const TREE = {
  type: 'object',
  properties: {
    name: { type: 'string' },
    kids: { type: 'array', items: { $ref: '#/$defs/tree' } },
    parent: { anyOf: [{ $ref: '#/$defs/tree' }, { type: 'null' }] },
  },
  required: ['name', 'kids', 'parent'],
};

describe('property: generated instances validate', () => {
  it('every schema of the supported subset, every seed: an instance ajv accepts', () => {
    fc.assert(
      fc.property(schemaArb, fc.nat(1000), (body, seed) => {
        // JSON round trip: `__proto__` keys own properties, as a request's would be.
        const schema = JSON.parse(JSON.stringify({ ...(body as object), $defs: { tree: TREE } }));
        const format = { type: 'json_schema', json_schema: { name: 'prop', schema } };
        expect(responseFormatProblems(format)).toEqual([]);
        const structured = structuredFormat(format)!;
        const text = structuredTokens(structured, String(seed)).join('');
        const validate = ajv.compile(schema);
        expect(validate(JSON.parse(text)), `${text}\n${JSON.stringify(validate.errors)}`).toBe(true);
        expect(structuredTokens(structured, String(seed)).join('')).toBe(text);
      }),
      { numRuns: Number(process.env.PROP_RUNS ?? 300) },
    );
  });
});

describe('schemas whose oneOf branches overlap level under level', () => {
  // Each level a oneOf of two $refs to the next: an exhaustive search for an instance in exactly one
  // branch doubles at every level. The emulator bounds its search and answers (before the bound, a
  // schema of 2 KB held it for hours); whether the answer can be in exactly one branch is moot here.
  const chain = (levels: number) => {
    const $defs: Record<string, unknown> = {};
    for (let i = 0; i < levels; i++)
      $defs[`l${i}`] =
        i === levels - 1
          ? { type: 'integer', minimum: 0, maximum: 3 }
          : { oneOf: [{ $ref: `#/$defs/l${i + 1}` }, { $ref: `#/$defs/l${i + 1}` }] };
    return {
      type: 'object',
      properties: { v: { $ref: '#/$defs/l0' } },
      required: ['v'],
      additionalProperties: false,
      $defs,
    };
  };
  it.each([24, 40])('%i levels: answered, the reply JSON', async (levels) => {
    for (const api of ['inference', 'training'] as const) {
      const answer = await whole(api, { response_format: jsonSchema(chain(levels)), seed: 1 });
      expect(JSON.parse(answer.content)).toEqual({ v: expect.any(Number) });
    }
  });
});
