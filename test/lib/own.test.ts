// lib/own.ts: a name from outside is looked up only among an object's own properties.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { dictionary, hasOwnKey, ownValue } from '../../src/lib/own.js';
import { BUILTIN_NAMES } from '../reliability/builtin-names.js';

describe('ownValue and hasOwnKey', () => {
  it('find nothing an object inherits', () => {
    for (const name of BUILTIN_NAMES) {
      expect(ownValue({ a: 1 } as Record<string, number>, name), name).toBeUndefined();
      expect(hasOwnKey({ a: 1 }, name), name).toBe(false);
    }
  });

  it('find what the object holds, built-in names and __proto__ from JSON included', () => {
    fc.assert(
      fc.property(fc.oneof(fc.constantFrom(...BUILTIN_NAMES), fc.string()), (name) => {
        const parsed = JSON.parse(JSON.stringify({ [name]: 7 })) as Record<string, number>;
        // JSON.parse makes every key an own property, "__proto__" too.
        expect(ownValue(parsed, name)).toBe(7);
        expect(hasOwnKey(parsed, name)).toBe(true);
        expect(ownValue(parsed, `${name}x`)).toBeUndefined();
      }),
    );
  });

  it('answer undefined and false for no object', () => {
    expect(ownValue(undefined, 'a')).toBeUndefined();
    expect(ownValue(null, 'toString')).toBeUndefined();
    expect(hasOwnKey(undefined, 'a')).toBe(false);
    expect(hasOwnKey(null, 'constructor')).toBe(false);
  });
});

describe('dictionary', () => {
  it('inherits nothing', () => {
    const d = dictionary<number>();
    for (const name of BUILTIN_NAMES) {
      expect(d[name], name).toBeUndefined();
      expect(name in d, name).toBe(false);
    }
    expect(Object.getPrototypeOf(d)).toBeNull();
  });

  it('holds __proto__ and the other built-in names as keys, never as its prototype', () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.oneof(fc.constantFrom(...BUILTIN_NAMES), fc.string())), (names) => {
        const d = dictionary(names.map((n, i) => [n, i] as const));
        expect(Object.getPrototypeOf(d)).toBeNull();
        expect(Object.keys(d).sort()).toEqual([...names].sort());
        names.forEach((n, i) => {
          expect(d[n]).toBe(i);
        });
        // Written by assignment after it was made, too.
        const key = '__proto__' as string;
        d[key] = 99;
        expect(Object.getPrototypeOf(d)).toBeNull();
        expect(JSON.stringify(d)).toContain('"__proto__":99');
      }),
    );
  });

  it('copies an object’s own entries only', () => {
    const from = Object.create({ inherited: 1 }) as Record<string, number>;
    from.own = 2;
    expect(Object.entries(dictionary(from))).toEqual([['own', 2]]);
    const parsed = JSON.parse('{"__proto__": {"polluted": true}, "a": 1}') as Record<string, unknown>;
    const d = dictionary(parsed);
    expect(Object.keys(d).sort()).toEqual(['__proto__', 'a']);
    expect((d as { polluted?: unknown }).polluted).toBeUndefined();
  });
});
