// Applying rules to decoded requests: each kind of rule wherever attributes live, nested values,
// untrusted names, the routing attributes, and the counts the gateway reports.

import { describe, expect, it } from 'vitest';
import type { PbAnyValue } from '../../../src/traces/otlp/otlp.js';
import { Redactor } from '../../../src/traces/redact/apply.js';
import { entries, kv, redactor, request, str, where } from './requests.js';

const SECRET = 'sk-live-4242abcd';

/** Every place attributes live, each with the same attribute. */
function everywhere(key: string, value: string) {
  return request({
    resource: [str('service.name', 'agent'), str(key, value)],
    scope: [str(key, value)],
    span: [str('gen_ai.operation.name', 'chat'), str(key, value)],
    events: [{ name: 'gen_ai.user.message', attributes: [str(key, value)] }],
    links: [[str(key, value)]],
  });
}

function attributeLists(req: ReturnType<typeof request>) {
  const { resource, scope, span } = where(req);
  return {
    resource: entries(resource.attributes),
    scope: entries(scope.attributes),
    span: entries(span.attributes),
    event: entries(span.events![0]!.attributes),
    link: entries(span.links![0]!.attributes),
  };
}

describe('--redact', () => {
  it('replaces every match, in resource, scope, span, event and link attributes', () => {
    const req = everywhere('api.key', `key ${SECRET} and again ${SECRET}.`);
    const counts = redactor({ redact: ['api.key=sk-[a-z0-9-]+'] }).apply(req);
    const lists = attributeLists(req);
    for (const list of Object.values(lists))
      expect(list).toContainEqual(['api.key', 'key [REDACTED] and again [REDACTED].']);
    expect(lists.resource).toContainEqual(['service.name', 'agent']);
    expect(counts).toEqual({ redacted: 5, dropped: 0 });
  });

  it('leaves other attributes, non-matching values and non-string values as they are', () => {
    const req = request({
      span: [
        str('other', SECRET),
        str('api.key', 'nothing to see'),
        kv('api.key', { intValue: { low: 42, high: 0 } }),
        kv('api.key', { boolValue: true }),
        kv('api.key', { bytesValue: new TextEncoder().encode(SECRET) }),
      ],
    });
    const counts = redactor({ redact: ['api.key=.+'] }).apply(req);
    expect(entries(where(req).span.attributes)).toEqual([
      ['other', SECRET],
      ['api.key', '[REDACTED]'],
      ['api.key', 42],
      ['api.key', true],
      // Bytes: a pattern is about text; --drop or a preset removes them.
      ['api.key', `bytes:${Buffer.from(SECRET).toString('hex')}`],
    ]);
    expect(counts).toEqual({ redacted: 1, dropped: 0 });
  });

  it('is case-sensitive unless (?i), and applies several rules on one attribute in order', () => {
    const req = request({ span: [str('note', 'Alice met BOB and bob')] });
    redactor({ redact: ['note=bob', 'note=(?i)alice'] }).apply(req);
    expect(entries(where(req).span.attributes)).toEqual([['note', '[REDACTED] met BOB and [REDACTED]']]);
  });

  it('replaces nothing for an empty match (x*, lookarounds)', () => {
    const req = request({ span: [str('a', 'abc'), str('b', 'xxyxx'), str('c', 'abc')] });
    const counts = redactor({ redact: ['a=q*', 'b=x*', 'c=(?<=a)'] }).apply(req);
    expect(entries(where(req).span.attributes)).toEqual([
      ['a', 'abc'],
      ['b', '[REDACTED]y[REDACTED]'],
      ['c', 'abc'],
    ]);
    expect(counts.redacted).toBe(1);
  });

  it('matches across lines only with (?s)', () => {
    const req = request({ span: [str('a', 'one\ntwo'), str('b', 'one\ntwo')] });
    redactor({ redact: ['a=.+', 'b=(?s).+'] }).apply(req);
    expect(entries(where(req).span.attributes)).toEqual([
      ['a', '[REDACTED]\n[REDACTED]'],
      ['b', '[REDACTED]'],
    ]);
  });

  it('works on astral characters whole (Unicode mode)', () => {
    const req = request({ span: [str('a', 'x😀y')] });
    redactor({ redact: ['a=x.y'] }).apply(req);
    expect(entries(where(req).span.attributes)).toEqual([['a', '[REDACTED]']]);
  });
});

describe('--drop', () => {
  it('removes the attribute everywhere, and counts it in droppedAttributesCount', () => {
    const req = everywhere('user.email', 'ada@example.com');
    const counts = redactor({ drop: ['user.email'] }).apply(req);
    const lists = attributeLists(req);
    for (const list of Object.values(lists)) expect(list.map(([key]) => key)).not.toContain('user.email');
    expect(lists.resource).toEqual([['service.name', 'agent']]);
    expect(lists.span).toEqual([['gen_ai.operation.name', 'chat']]);
    expect(counts).toEqual({ redacted: 0, dropped: 5 });
    const { resource, scope, span } = where(req);
    for (const holder of [resource, scope, span, span.events![0]!, span.links![0]!])
      expect(holder.droppedAttributesCount).toBe(1);
  });

  it('adds to a droppedAttributesCount the SDK had already set', () => {
    const req = request({ span: [str('a', '1'), str('b', '2'), str('a', '3')] });
    where(req).span.droppedAttributesCount = 7;
    redactor({ drop: ['a'] }).apply(req);
    expect(where(req).span.droppedAttributesCount).toBe(9);
    expect(entries(where(req).span.attributes)).toEqual([['b', '2']]);
  });

  it('takes a glob, and wins over --redact and presets on the same attribute', () => {
    const req = request({
      span: [
        str('db.statement', 'SELECT 1'),
        str('db.system', 'pg'),
        str('input.value', 'hi'),
        str('dbx', 'y'),
      ],
    });
    const counts = redactor({
      drop: ['db.*', 'input.value'],
      redact: ['db.system=pg'],
      presets: ['prompts'],
    }).apply(req);
    expect(entries(where(req).span.attributes)).toEqual([['dbx', 'y']]);
    expect(counts).toEqual({ redacted: 0, dropped: 3 });
  });
});

describe('nested values', () => {
  const messages: PbAnyValue = {
    arrayValue: {
      values: [
        {
          kvlistValue: {
            values: [
              str('role', 'user'),
              str('content', `my key is ${SECRET}`),
              kv('meta', { kvlistValue: { values: [str('ip', '10.0.0.7'), str('note', SECRET)] } }),
            ],
          },
        },
        { stringValue: `plain ${SECRET}` },
      ],
    },
  };

  it('applies a --redact pattern to every string inside arrays and kvlists', () => {
    const req = request({ span: [kv('chat.history', messages)] });
    const counts = redactor({ redact: ['chat.history=sk-[a-z0-9-]+'] }).apply(req);
    expect(entries(where(req).span.attributes)).toEqual([
      [
        'chat.history',
        [
          [
            ['role', 'user'],
            ['content', 'my key is [REDACTED]'],
            [
              'meta',
              [
                ['ip', '10.0.0.7'],
                ['note', '[REDACTED]'],
              ],
            ],
          ],
          'plain [REDACTED]',
        ],
      ],
    ]);
    expect(counts).toEqual({ redacted: 3, dropped: 0 });
  });

  it('knows a kvlist entry as attr.key (arrays add nothing), for --drop and --redact', () => {
    const req = request({ span: [kv('chat.history', messages)] });
    const counts = redactor({
      drop: ['chat.history.meta.ip'],
      redact: ['chat.history.content=my key'],
    }).apply(req);
    const [[, history]] = entries(where(req).span.attributes) as [[string, unknown[]]];
    expect(history[0]).toEqual([
      ['role', 'user'],
      ['content', `[REDACTED] is ${SECRET}`],
      ['meta', [['note', SECRET]]],
    ]);
    expect(counts).toEqual({ redacted: 1, dropped: 1 });
    // A nested entry removed is no attribute of the span: droppedAttributesCount is the span's own.
    expect(where(req).span.droppedAttributesCount ?? 0).toBe(0);
  });

  it('masks a structured value whole under a preset', () => {
    const req = request({ span: [kv('gen_ai.input.messages', messages)] });
    const counts = redactor({ presets: ['prompts'] }).apply(req);
    expect(entries(where(req).span.attributes)).toEqual([['gen_ai.input.messages', '[REDACTED]']]);
    expect(counts).toEqual({ redacted: 1, dropped: 0 });
  });
});

describe('names from the wire', () => {
  it('treats __proto__, constructor and toString as keys like any other', () => {
    const keys = ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'prototype'];
    const req = request({ span: keys.map((key) => str(key, `${key} ${SECRET}`)) });
    const counts = redactor({ drop: ['constructor'], redact: ['__proto__=sk-\\S+', 'to*=sk-\\S+'] }).apply(
      req,
    );
    expect(entries(where(req).span.attributes)).toEqual([
      ['__proto__', '__proto__ [REDACTED]'],
      ['toString', 'toString [REDACTED]'],
      ['hasOwnProperty', `hasOwnProperty ${SECRET}`],
      ['prototype', `prototype ${SECRET}`],
    ]);
    expect(counts).toEqual({ redacted: 2, dropped: 1 });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('copes with many distinct names (the table starts over rather than grow)', () => {
    const names = Array.from({ length: 25_000 }, (_, i) => str(`k${i}`, SECRET));
    const req = request({ span: names });
    const counts = redactor({ redact: ['k*=sk'] }).apply(req);
    expect(counts.redacted).toBe(25_000);
  });
});

describe('the routing attributes', () => {
  it('are left alone by globs that cover them, wherever they are', () => {
    const routing = [str('wandb.entity', 'team'), str('wandb.project', 'agents')];
    const req = request({
      resource: [...routing, str('wandb.run', 'r1')],
      span: [...routing],
      events: [{ name: 'gen_ai.user.message', attributes: [...routing] }],
    });
    const counts = redactor({ drop: ['wandb.*'], redact: ['*=.+'], presets: ['content'] }).apply(req);
    const { resource, span } = where(req);
    expect(entries(resource.attributes)).toEqual([
      ['wandb.entity', 'team'],
      ['wandb.project', 'agents'],
    ]);
    expect(entries(span.attributes)).toEqual([
      ['wandb.entity', 'team'],
      ['wandb.project', 'agents'],
    ]);
    expect(entries(span.events![0]!.attributes)).toEqual([
      ['wandb.entity', 'team'],
      ['wandb.project', 'agents'],
    ]);
    expect(counts).toEqual({ redacted: 0, dropped: 1 });
  });
});

describe('an empty Redactor', () => {
  it('is empty, and does nothing', () => {
    const empty = new Redactor([]);
    expect(empty.isEmpty).toBe(true);
    const req = everywhere('api.key', SECRET);
    expect(empty.apply(req)).toEqual({ redacted: 0, dropped: 0 });
    expect(attributeLists(req).span).toContainEqual(['api.key', SECRET]);
    expect(redactor({ drop: ['x'] }).isEmpty).toBe(false);
  });

  it('can be handed over as a function, unbound', () => {
    const { apply } = redactor({ drop: ['api.key'] });
    const req = everywhere('api.key', SECRET);
    expect(apply(req)).toEqual({ redacted: 0, dropped: 5 });
  });

  it('copes with requests that have nothing in them', () => {
    const r = redactor({ drop: ['x'], presets: ['content'] });
    expect(r.apply({ resourceSpans: [] })).toEqual({ redacted: 0, dropped: 0 });
    expect(r.apply({ resourceSpans: [{ scopeSpans: [{ spans: [{}] }] }] })).toEqual({
      redacted: 0,
      dropped: 0,
    });
    const valueless = request({ span: [{ key: 'input.value' }, { key: 'x' }] });
    expect(r.apply(valueless)).toEqual({ redacted: 0, dropped: 1 });
  });
});
