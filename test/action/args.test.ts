// `args` split as a POSIX shell splits words, and nothing more: the cases xargs got wrong, then
// generated command lines compared with what bash itself makes of them.

import { spawnSync } from 'node:child_process';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ArgsError, splitArgs } from '../../src/action/args.js';

describe('splitArgs', () => {
  it.each([
    // The composite action's xargs failed or differed on each of these.
    ['an apostrophe inside double quotes', `chat --system "it's fine"`, ['chat', '--system', "it's fine"]],
    ['an escaped apostrophe', `chat --system it\\'s`, ['chat', '--system', "it's"]],
    ['a quoted line break', `chat --system "line one\nline two"`, ['chat', '--system', 'line one\nline two']],
    ['\\" inside double quotes', `--jq "\\"x\\""`, ['--jq', '"x"']],
    ['\\" outside quotes', `a\\"b`, ['a"b']],
    ['a trailing ""', `config set project ""`, ['config', 'set', 'project', '']],
    ["a trailing ''", `config set project ''`, ['config', 'set', 'project', '']],
    [
      'words over lines, as a YAML block gives them',
      'jobs create rl\n  --model agent\n  --wait\n',
      ['jobs', 'create', 'rl', '--model', 'agent', '--wait'],
    ],
    ['$… and `…` kept as written', 'x $HOME "$(id)" `id` ~ *', ['x', '$HOME', '$(id)', '`id`', '~', '*']],
    ['operators as plain characters', `--jq '.[] | .id' a;b`, ['--jq', '.[] | .id', 'a;b']],
    ["$'…' strings", `--system $'a\\tb'`, ['--system', 'a\tb']],
    ['nothing', '', []],
    ['a backslash at the end, kept as bash keeps it', 'a b\\', ['a', 'b\\']],
    [
      'line continuations, as in a command copied from a shell',
      'jobs create rl \\\n  --wait',
      ['jobs', 'create', 'rl', '--wait'],
    ],
  ])('%s', (_name, text, words) => {
    expect(splitArgs(text)).toEqual(words);
  });

  it.each([
    ['an unclosed apostrophe', "jobs validate sft it's.jsonl"],
    ['an unclosed double quote', 'chat "hello'],
  ])('refuses %s, without repeating the text (it may hold a key)', (_name, text) => {
    let thrown: unknown;
    try {
      splitArgs(`sk-secret ${text}`);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ArgsError);
    expect((thrown as Error).message).toMatch(/^args: /);
    expect((thrown as Error).message).not.toContain('sk-secret');
  });

  // bash's own reading of a line, through printf: its words, or undefined when it refuses the line.
  const bashWords = (line: string): string[] | undefined => {
    // The count first: printf with no words still prints one (empty) field.
    const script = `words() { printf '%s\\0' "$#" "$@"; }; words ${line}`;
    const r = spawnSync('bash', ['--norc', '--noprofile', '-c', script], { encoding: 'utf8' });
    if (r.status !== 0) return undefined;
    const [count, ...words] = r.stdout.slice(0, -1).split('\0');
    return words.slice(0, Number(count));
  };

  it('splits generated lines as bash does (quotes, escapes, line breaks; nothing bash would expand)', () => {
    // Characters bash would expand or treat as syntax ($ ` * ? [ ~ { ! # | ; & < > ( )) left out:
    // those are literal to splitArgs by design, which bash cannot be compared with; so is a line
    // break, which outside quotes ends bash's command but is a space to args (the cases above).
    const piece = fc.constantFrom(
      'a',
      'b',
      'é',
      ' ',
      '  ',
      '\t',
      "'",
      '"',
      '\\',
      '\\\\',
      '=',
      '-',
      '.',
      '/',
      ',',
      ':',
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 14 }), (pieces) => {
        const line = pieces.join('');
        const expected = bashWords(line);
        if (expected === undefined) expect(() => splitArgs(line)).toThrow(ArgsError);
        else expect(splitArgs(line)).toEqual(expected);
      }),
      { numRuns: 150 },
    );
  });
});
