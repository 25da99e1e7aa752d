// Parsing the rules: what is refused, with which one line, and what the accepted rules compile to.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../../src/errors/errors.js';
import { compileRegex } from '../../../src/traces/redact/regex.js';
import {
  Glob,
  parseDrop,
  parsePresetName,
  parseRedact,
  presetRules,
  ruleMatches,
} from '../../../src/traces/redact/rules.js';

function refusal(parse: () => unknown): string {
  try {
    parse();
  } catch (error) {
    expect(error).toBeInstanceOf(UsageError);
    const message = (error as Error).message;
    expect(message).not.toContain('\n');
    return message;
  }
  throw new Error('expected a refusal');
}

describe('--redact ATTR=REGEX', () => {
  it('splits at the first =, so that a regex may hold one', () => {
    const rule = parseRedact('http.url=token=[^&]+');
    expect(rule).toMatchObject({ kind: 'redact', name: 'http.url' });
    expect('a?token=abc&b=1'.replace(rule.pattern!, 'X')).toBe('a?X&b=1');
  });

  it('refuses a value without =, pointing at --drop', () => {
    expect(refusal(() => parseRedact('user.email'))).toBe(
      '"user.email": expected ATTR=REGEX; to remove an attribute, --drop ATTR',
    );
  });

  it('refuses an empty attribute name, and one with spaces around it', () => {
    expect(refusal(() => parseRedact('=secret'))).toBe('the attribute name is empty');
    expect(refusal(() => parseRedact('  =secret'))).toBe('the attribute name is empty');
    expect(refusal(() => parseRedact(' user.email=x'))).toContain('spaces around it');
  });

  it('refuses an empty regex, naming the attribute', () => {
    expect(refusal(() => parseRedact('user.email='))).toBe('user.email: the regular expression is empty');
    expect(refusal(() => parseRedact('user.email=(?i)'))).toBe('user.email: the regular expression is empty');
  });

  it('refuses a bad regex, saying which attribute and why', () => {
    expect(refusal(() => parseRedact('a=([a-z'))).toMatch(/^a: not a valid regular expression: \w/);
    expect(refusal(() => parseRedact('a=*x'))).toBe('a: not a valid regular expression: Nothing to repeat');
    // Unicode mode: an escape that means nothing is an error, not a silent literal.
    expect(refusal(() => parseRedact('a=\\q'))).toMatch(/^a: not a valid regular expression: /);
  });

  it('refuses the routing attributes by name', () => {
    for (const name of ['wandb.entity', 'wandb.project']) {
      expect(refusal(() => parseRedact(`${name}=.+`))).toBe(
        `${name} routes spans to their project (without it the platform drops them): redaction leaves it alone`,
      );
      expect(refusal(() => parseDrop(name))).toContain(`${name} routes spans to their project`);
    }
  });

  it('takes a glob that covers the routing attributes (they are exempt when applied)', () => {
    expect(parseDrop('wandb.*').name).toBe('wandb.*');
    expect(parseRedact('*=sk-[A-Za-z0-9]+').name).toBe('*');
  });
});

describe('regex flags', () => {
  it('takes a leading (?i), (?m), (?s) and combinations', () => {
    expect(compileRegex('(?i)secret').flags).toBe('giu');
    expect(compileRegex('(?si)a.b').flags).toBe('gisu');
    expect(compileRegex('(?s).+').test('two\nlines')).toBe(true);
    expect(compileRegex('(?m)^x$').flags).toBe('gmu');
    expect(compileRegex('plain').flags).toBe('gu');
  });

  it('refuses other leading flags, saying which', () => {
    expect(refusal(() => compileRegex('(?x)a b'))).toBe(
      '(?x): the flag x is not supported; only i, m and s are',
    );
    expect(refusal(() => compileRegex('(?iU)a'))).toBe(
      '(?iU): the flag U is not supported; only i, m and s are',
    );
  });

  it('refuses inline flags past the start, and Python named groups', () => {
    expect(refusal(() => compileRegex('a(?i)b'))).toBe(
      '"(?i)…" at 1: inline flags are supported only at the start, as (?i), (?m), (?s)',
    );
    expect(refusal(() => compileRegex('(?i)a(?-i:b)'))).toContain('at 5: inline flags');
    expect(refusal(() => compileRegex('(?P<k>x)'))).toContain('at 0: inline flags');
  });

  it('leaves groups, lookarounds and escaped or bracketed parentheses alone', () => {
    for (const ok of ['(?:a)', '(?=a)', '(?!a)', '(?<=a)b', '(?<!a)b', '(?<name>a)', '\\(?i\\)', '[(?i)]'])
      expect(() => compileRegex(ok), ok).not.toThrow();
  });
});

describe('attribute names', () => {
  it('matches an exact name exactly', () => {
    const rule = parseDrop('user.email');
    expect(ruleMatches(rule, 'user.email')).toBe(true);
    expect(ruleMatches(rule, 'user.emails')).toBe(false);
    expect(ruleMatches(rule, 'xuser.email')).toBe(false);
  });

  it('matches * across dots, and nothing else as a wildcard', () => {
    const rule = parseDrop('gen_ai.prompt.*');
    expect(ruleMatches(rule, 'gen_ai.prompt.0.content')).toBe(true);
    expect(ruleMatches(rule, 'gen_ai.prompt.12.tool_calls.0.arguments')).toBe(true);
    expect(ruleMatches(rule, 'gen_ai.prompt')).toBe(false);
    expect(ruleMatches(rule, 'gen_ai_prompt.0')).toBe(false);
    const middle = parseDrop('llm.*.content');
    expect(ruleMatches(middle, 'llm.input_messages.0.message.content')).toBe(true);
    expect(ruleMatches(middle, 'llm.input_messages.0.message.role')).toBe(false);
    // Regex characters in a name are literal.
    expect(ruleMatches(parseDrop('a+b(c)'), 'a+b(c)')).toBe(true);
    expect(ruleMatches(parseDrop('a+b(c)'), 'aab(c)')).toBe(false);
  });

  it('treats __proto__ and constructor as names like any other', () => {
    expect(ruleMatches(parseDrop('__proto__'), '__proto__')).toBe(true);
    expect(ruleMatches(parseDrop('constructor'), 'toString')).toBe(false);
  });
});

describe('--redact-preset', () => {
  it('knows its presets, and lists them for an unknown one', () => {
    expect(parsePresetName('prompts')).toBe('prompts');
    expect(refusal(() => parsePresetName('secrets'))).toBe(
      'unknown preset "secrets"; the presets are prompts, completions, content, tool-io',
    );
    expect(refusal(() => parsePresetName('constructor'))).toContain('unknown preset');
    expect(refusal(() => parsePresetName('Prompts'))).toContain('unknown preset');
  });

  it('masks, and never touches the routing attributes', () => {
    for (const name of ['prompts', 'completions', 'content', 'tool-io'] as const) {
      const rules = presetRules(name);
      expect(rules.length).toBeGreaterThan(5);
      expect(rules.every((rule) => rule.kind === 'mask')).toBe(true);
      for (const routing of ['wandb.entity', 'wandb.project'])
        expect(rules.some((rule) => ruleMatches(rule, routing))).toBe(false);
    }
  });

  it('content is prompts, completions and tool-io together', () => {
    const names = (preset: Parameters<typeof presetRules>[0]) =>
      new Set(presetRules(preset).map((rule) => `${rule.name}@${[...(rule.events ?? [])].join(',')}`));
    const content = names('content');
    for (const part of ['prompts', 'completions', 'tool-io'] as const)
      for (const name of names(part)) expect(content.has(name), name).toBe(true);
  });
});

describe('any value at all', () => {
  const anyText = fc.oneof(
    fc.string({ maxLength: 24 }),
    fc.string({ unit: 'binary', maxLength: 24 }),
    fc.stringMatching(/^[a-z.*_ \n]{0,8}=[()[\]?*+\\a-z{},:!<=-]{0,12}$/),
  );

  it('is a rule or a one-line UsageError, never anything else', () => {
    fc.assert(
      fc.property(anyText, (value) => {
        for (const parse of [parseRedact, parseDrop, parsePresetName, compileRegex]) {
          try {
            parse(value);
          } catch (error) {
            expect(error).toBeInstanceOf(UsageError);
            expect((error as Error).message).not.toMatch(/[\n\r]/);
          }
        }
      }),
      { numRuns: 1000 },
    );
  });

  it('refuses control characters in names, and quotes what it prints', () => {
    expect(refusal(() => parseDrop('a\nb'))).toBe('"a\\nb": the attribute name has a control character');
    expect(refusal(() => parseRedact('a\n=x'))).toContain('spaces around it');
    expect(refusal(() => compileRegex('x(?i\n)'))).toContain('inline flags');
  });
});

describe('globs against names from the wire', () => {
  it('match as * means (any run, dots included), leftmost first', () => {
    const glob = new Glob('gen_ai.*.tool_calls.*.arguments');
    expect(glob.test('gen_ai.output.messages.0.tool_calls.1.arguments')).toBe(true);
    expect(glob.test('gen_ai..tool_calls..arguments')).toBe(true);
    expect(glob.test('gen_ai.tool_calls.arguments')).toBe(false);
    expect(glob.test('gen_ai.x.tool_calls.1.argument')).toBe(false);
    expect(new Glob('a*a').test('a')).toBe(false);
    expect(new Glob('a*a').test('aa')).toBe(true);
    expect(new Glob('*').test('')).toBe(true);
    expect(new Glob('ab*b*bc').test('abbc')).toBe(false);
    expect(new Glob('ab*b*bc').test('abbbc')).toBe(true);
  });

  it('agree with the regex meaning of the glob, over generated names', () => {
    const letters = fc.stringMatching(/^[ab.*]{0,8}$/);
    fc.assert(
      fc.property(letters, fc.stringMatching(/^[ab.]{0,12}$/), (pattern, key) => {
        const regex = new RegExp(
          `^${pattern
            .split('*')
            .map((p) => p.replace(/\./g, '\\.'))
            .join('[\\s\\S]*')}$`,
        );
        expect(new Glob(pattern).test(key)).toBe(regex.test(key));
      }),
      { numRuns: 2000 },
    );
  });

  it('answer a long name built for a backtracking matcher (many near-misses, no match)', () => {
    // The regex this replaced took seconds on such a name; the walk is linear in it (not timed here:
    // machines differ, and a test never asserts a time).
    const glob = new Glob('gen_ai.*.tool_calls.*.arguments');
    const key = `gen_ai.${'.tool_calls.'.repeat(20_000)}x`;
    expect(glob.test(key)).toBe(false);
  });
});
