// The toolkit's escaping and heredoc rules, checked against the runner's own reading of them
// (runner.ts): whatever the text, it comes back as it was.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  escapeData,
  escapeProperty,
  keyValueEntry,
  workflowCommand,
} from '../../src/ci/workflow-commands.js';
import { parseCommand, parseOutputs } from './runner.js';

const HOSTILE = 'a%b\r\nc:d,e%0A%25::f=g';

describe('workflow commands', () => {
  it('escapes as @actions/core does: data % \\r \\n; properties also : and ,', () => {
    expect(escapeData('100% done\r\nnext: a,b')).toBe('100%25 done%0D%0Anext: a,b');
    expect(escapeProperty('100% done\r\nnext: a,b')).toBe('100%25 done%0D%0Anext%3A a%2Cb');
  });

  it('writes ::name k=v,k=v::message, leaving out properties without a value', () => {
    expect(workflowCommand('error', { title: 'T', file: 'f.jsonl', line: 3, col: undefined }, 'm')).toBe(
      '::error title=T,file=f.jsonl,line=3::m',
    );
    expect(workflowCommand('warning', {}, 'w')).toBe('::warning::w');
  });

  it('gives the runner back exactly the text, properties and message alike (hostile and random)', () => {
    const line = workflowCommand('error', { file: HOSTILE, title: HOSTILE }, HOSTILE);
    expect(line).not.toMatch(/[\r\n]/);
    expect(parseCommand(line)).toMatchObject({
      command: 'error',
      properties: { file: HOSTILE, title: HOSTILE },
      data: HOSTILE,
    });
    fc.assert(
      // The runner trims the properties (Trim()): a value that ends the list keeps no trailing space.
      fc.property(
        fc.string({ unit: 'binary', minLength: 1 }).filter((p) => p === p.trim() && p !== ''),
        fc.string({ unit: 'binary' }),
        (prop, data) => {
          const parsed = parseCommand(workflowCommand('error', { title: prop }, data));
          expect(parsed?.properties.title).toBe(prop);
          expect(parsed?.data).toBe(data);
        },
      ),
    );
  });
});

describe('outputs file entries', () => {
  it('round-trips any value, line breaks and "=" and "<<" included', () => {
    const values = ['', 'x', 'a\nb', 'a=b', 'a<<b', 'line\n', '\n\n', HOSTILE];
    const text = values.map((v, i) => keyValueEntry(`o${i}`, v)).join('');
    expect(parseOutputs(text)).toEqual(values.map((v, i) => [`o${i}`, v]));
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (value) => {
        expect(parseOutputs(keyValueEntry('v', value))).toEqual([['v', value]]);
      }),
    );
  });

  it('refuses a name or value holding the delimiter, as @actions/core does', () => {
    const uuid = '00000000-0000-4000-8000-000000000000';
    const delimiter = `ghadelimiter_${uuid}`;
    expect(() => keyValueEntry('v', `x\n${delimiter}\ninjected=1`, uuid)).toThrow(
      /value should not contain the delimiter/,
    );
    expect(() => keyValueEntry(delimiter, 'x', uuid)).toThrow(/name should not contain the delimiter/);
  });

  it('uses a new delimiter each time', () => {
    const delimiterOf = (entry: string) => entry.split('\n')[0]!.split('<<')[1];
    expect(delimiterOf(keyValueEntry('a', '1'))).toMatch(/^ghadelimiter_[0-9a-f-]{36}$/);
    expect(delimiterOf(keyValueEntry('a', '1'))).not.toBe(delimiterOf(keyValueEntry('a', '1')));
  });
});
