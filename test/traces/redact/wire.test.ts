// Redaction as the gateway uses it: on a decoded request, then encoded again to be forwarded. What was
// redacted is nowhere in the bytes sent; an empty redactor sends exactly the bytes it was given.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  decodeRequest,
  encodeRequest,
  type PbAnyValue,
  type PbExportRequest,
  type PbKeyValue,
} from '../../../src/traces/otlp/otlp.js';
import { Redactor } from '../../../src/traces/redact/apply.js';
import { entries, kv, redactor, request, str, where } from './requests.js';

const SECRET = 'hunter2-TOP-SECRET-7731';

const contains = (bytes: Uint8Array, text: string) => Buffer.from(bytes).includes(Buffer.from(text, 'utf8'));

function everywhereWithSecret(): PbExportRequest {
  const nested: PbAnyValue = {
    arrayValue: { values: [{ kvlistValue: { values: [str('content', `x ${SECRET} y`)] } }] },
  };
  return request({
    resource: [str('wandb.entity', 'team'), str('wandb.project', 'agents'), str('host.note', SECRET)],
    scope: [str('scope.note', SECRET)],
    span: [str('gen_ai.prompt.0.content', SECRET), kv('chat.history', nested), str('user.email', SECRET)],
    events: [{ name: 'gen_ai.choice', attributes: [str('message', SECRET)] }],
    links: [[str('link.note', `before ${SECRET} after`)]],
  });
}

describe('through encodeRequest and decodeRequest', () => {
  it('leaves the redacted text nowhere in the encoded bytes, and the rest intact', () => {
    const req = everywhereWithSecret();
    expect(contains(encodeRequest(req), SECRET)).toBe(true);
    const counts = redactor({
      redact: ['*.note=hunter2-[A-Z-]+\\d+', 'chat.history=(?i)hunter2\\S+'],
      drop: ['user.email'],
      presets: ['content'],
    }).apply(req);
    const bytes = encodeRequest(req);
    expect(contains(bytes, SECRET)).toBe(false);
    expect(contains(bytes, 'hunter2')).toBe(false);
    expect(counts).toEqual({ redacted: 6, dropped: 1 });
    const back = decodeRequest(bytes);
    const { resource, span } = where(back);
    expect(entries(resource.attributes)).toEqual([
      ['wandb.entity', 'team'],
      ['wandb.project', 'agents'],
      ['host.note', '[REDACTED]'],
    ]);
    expect(entries(span.attributes)).toEqual([
      ['gen_ai.prompt.0.content', '[REDACTED]'],
      ['chat.history', [[['content', 'x [REDACTED] y']]]],
    ]);
    expect(span.droppedAttributesCount).toBe(1);
    expect(entries(span.links![0]!.attributes)).toEqual([['link.note', 'before [REDACTED] after']]);
  });

  it('an empty redactor leaves the request byte-identical', () => {
    const bytes = encodeRequest(everywhereWithSecret());
    const req = decodeRequest(bytes);
    expect(new Redactor([]).apply(req)).toEqual({ redacted: 0, dropped: 0 });
    expect(Buffer.from(encodeRequest(req)).equals(Buffer.from(bytes))).toBe(true);
  });

  it('rules that match nothing leave it byte-identical too', () => {
    const bytes = encodeRequest(everywhereWithSecret());
    const req = decodeRequest(bytes);
    expect(redactor({ drop: ['nothing.here'], redact: ['*=no such text'] }).apply(req)).toEqual({
      redacted: 0,
      dropped: 0,
    });
    expect(Buffer.from(encodeRequest(req)).equals(Buffer.from(bytes))).toBe(true);
  });
});

// Keys drawn from a small alphabet so that rules and names meet often; values nest arrays and kvlists.
const keyArb = fc.constantFrom(
  'a',
  'b',
  'a.b',
  '__proto__',
  'constructor',
  'wandb.entity',
  'gen_ai.prompt.0.content',
);
const valueArb: fc.Arbitrary<PbAnyValue> = fc.letrec<{ value: PbAnyValue }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.string({ maxLength: 12 }).map((s) => ({ stringValue: s })),
    fc.constantFrom('tok-1', 'xx tok-22 yy').map((s) => ({ stringValue: s })),
    fc.boolean().map((b) => ({ boolValue: b })),
    fc.array(tie('value'), { maxLength: 3 }).map((values) => ({ arrayValue: { values } })),
    fc.array(fc.tuple(keyArb, tie('value')), { maxLength: 3 }).map((pairs) => ({
      kvlistValue: { values: pairs.map(([key, value]): PbKeyValue => ({ key, value })) },
    })),
  ),
})).value;
const attributesArb = fc
  .array(fc.tuple(keyArb, valueArb), { maxLength: 6 })
  .map((pairs) => pairs.map(([key, value]) => kv(key, value)));

describe('properties', () => {
  it('no match of a --redact pattern survives, anywhere, at any depth; routing values stay', () => {
    fc.assert(
      fc.property(attributesArb, attributesArb, (resource, span) => {
        const req = request({ resource: [str('wandb.entity', 'tok-9'), ...resource], span });
        redactor({ redact: ['*=tok-\\d+'] }).apply(req);
        const bytes = encodeRequest(req);
        const back = where(decodeRequest(bytes));
        // The routing attributes are exempt, wherever they are; every other tok-N is gone.
        expect(entries(back.resource.attributes)[0]).toEqual(['wandb.entity', 'tok-9']);
        const others = [...back.resource.attributes!, ...back.span.attributes!].filter(
          (a) => a.key !== 'wandb.entity',
        );
        expect(JSON.stringify(entries(others))).not.toMatch(/tok-\d/);
      }),
    );
  });

  it('redacting twice is redacting once, and dropping leaves no attribute of that name', () => {
    fc.assert(
      fc.property(attributesArb, (span) => {
        const r = redactor({ drop: ['a.b'], redact: ['a=tok'], presets: ['prompts'] });
        const req = request({ span });
        r.apply(req);
        const once = encodeRequest(req);
        expect(r.apply(req).dropped).toBe(0);
        expect(Buffer.from(encodeRequest(req)).equals(Buffer.from(once))).toBe(true);
        expect(where(req).span.attributes!.some((a) => a.key === 'a.b')).toBe(false);
      }),
    );
  });
});
