// The neutraliser of lines a runner would read as workflow commands (src/ci/runner-lines.ts), against
// a re-implementation of the runner's own parsing (test/helpers/runner-commands.ts): what it changes,
// that a line split over writes comes out as if written whole, that the runner finds no command in
// anything it lets through, and that JSON (io.ts exactJson) needs none of it.

import { closeSync, openSync, readFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { guardRunnerLines, RunnerLines } from '../../src/ci/runner-lines.js';
import { exactJson, IO } from '../../src/output/io.js';
import { fakeIO } from '../helpers/io.js';
import { runnerCommands } from '../helpers/runner-commands.js';
import { tempDir } from '../helpers/temp.js';

const guard = (text: string) => new RunnerLines().guard(text);

/** Pieces that make up workflow commands, their look-alikes and what the runner passes over. */
const PIECES = [
  ':',
  '::',
  '#',
  '##',
  '[',
  ']',
  ' ',
  '\t',
  '\u00a0',
  '\u2028',
  '\u3000',
  '\n',
  '\r',
  '\r\n',
  '\u200b',
  '\u200d',
  '\ufeff',
  '\u00ad',
  '\u2060',
  '\u034f',
  '\u180e',
  '\ufe0f',
  '\u{e0041}',
  '\u{1d173}',
  'warning',
  'ERROR',
  'notice',
  'stop-commands',
  'add-mask',
  'x',
  'é',
  '%0A',
  ',',
  '=',
  ' title=t',
];
/** aip's own controls, which reach the guard only when aip put them there (output/sanitize.ts). */
const OWN_CONTROLS = ['\u001b', '\u001b[31m', '\u0007', '\u0085'];

const text = (pieces: string[]) =>
  fc.array(fc.constantFrom(...pieces), { maxLength: 40 }).map((p) => p.join(''));
const anyText = text([...PIECES, ...OWN_CONTROLS]);

/** Lines the runner acts on, each somewhere in random text. */
const COMMANDS = ['\n::warning::forged', '\r  ::stop-commands::tok3n', 'x ##[error]y', '\n::Add-Mask::k\r'];
const withCommands = (pieces: string[]) =>
  fc
    .array(fc.oneof(text(pieces), fc.constantFrom(...COMMANDS)), { maxLength: 6 })
    .map((parts) => parts.join(''));

describe('the runner reads', () => {
  // The oracle finds what it should: without this, "finds nothing" below would prove nothing.
  it.each([
    ['::warning::x', 'warning'],
    ['  ::error title=t::x', 'error'],
    ['\u00a0\u3000::notice::x', 'notice'],
    ['a ##[warning]x', 'warning'],
    ['::WARNING::x', 'WARNING'],
    ['::warning:\u200b:x', 'warning'],
    ['\u200b##[debug]x', 'debug'],
  ])('%j as %s', (line, command) => {
    expect(runnerCommands(`before\r${line}\r\nafter`).map((c) => c.command)).toEqual([command]);
  });

  it('a stop token as a command from then on', () => {
    expect(runnerCommands('::stop-commands::tok3n\n::tok3n::').map((c) => c.command)).toEqual([
      'stop-commands',
      'tok3n',
    ]);
  });

  it("where passed-over characters shift the name's cut, nothing; strictly, something", () => {
    for (const line of ['\u200b::notice::x', '#\u200b#[error]x', ':\u200b:warning::x', '##\u001b[31m]'])
      expect(runnerCommands(line)).toEqual([]);
    for (const line of ['\u200b::notice::x', '#\u200b#[error]x', ':\u200b:warning::x'])
      expect(runnerCommands(line, { strict: true })).toHaveLength(1);
  });
});

describe('neutralised', () => {
  it.each([
    ['::warning::x', ':<U+003A>warning::x'],
    ['\n::warning::forged\n::stop-commands::x', '\n:<U+003A>warning::forged\n:<U+003A>stop-commands::x'],
    ['  ::error::x', '  :<U+003A>error::x'],
    ['\t\u00a0\u2028::error::x', '\t\u00a0\u2028:<U+003A>error::x'],
    ['a\r::debug::x\r\n::group::y', 'a\r:<U+003A>debug::x\r\n:<U+003A>group::y'],
    ['\u200b::notice::x', '<U+200B>::notice::x'],
    ['\ufeff\u{e0041}::x', '<U+FEFF>::x'.replace('::', '\u{e0041}::')],
    [':\u200b:x', ':<U+200B>:x'],
    ['a ##[warning]x', 'a ##<U+005B>warning]x'],
    ['###[x', '###<U+005B>x'],
    ['#\u200b#[error]x', '#<U+200B>#[error]x'],
    ['##\u00ad[error]x', '##<U+00AD>[error]x'],
  ])('%j as %j', (raw, shown) => {
    expect(guard(raw)).toBe(shown);
  });

  it.each([
    'hello world\n',
    'a::b ::c',
    ': :x',
    '## heading',
    '#[x] [##] # #[',
    'x\u200by #a',
    // aip's own escape sequences pass: the "[" of one is no command's.
    '\u001b[31m::x\u001b[39m',
    '##\u001b[31mred\u001b[39m',
    'x:\n',
  ])('%j as it is', (raw) => {
    expect(guard(raw)).toBe(raw);
  });

  it('a line split over writes as if written whole', () => {
    fc.assert(
      fc.property(anyText, fc.array(fc.nat(), { maxLength: 6 }), (whole, cuts) => {
        // Between characters: half a surrogate pair is no text Node can write (it writes U+FFFD).
        const chars = Array.from(whole);
        const at = [...new Set(cuts.map((c) => c % (chars.length + 1)))].sort((a, b) => a - b);
        const pieces = [0, ...at].map((from, i) => chars.slice(from, [...at, chars.length][i]).join(''));
        const lines = new RunnerLines();
        expect(pieces.map((p) => lines.guard(p)).join('')).toBe(guard(whole));
      }),
    );
    const lines = new RunnerLines();
    expect([':', ':warning::x\n#', '#', '[error]y'].map((p) => lines.guard(p)).join('')).toBe(
      ':<U+003A>warning::x\n##<U+005B>error]y',
    );
  });

  it('leaves the runner no command, whatever the text', () => {
    let hostile = 0;
    fc.assert(
      fc.property(withCommands([...PIECES, ...OWN_CONTROLS]), (raw) => {
        if (runnerCommands(raw).length > 0) hostile++;
        expect(runnerCommands(guard(raw))).toEqual([]);
      }),
    );
    // The cases held commands the runner would have taken: the property is no empty promise.
    expect(hostile).toBeGreaterThan(25);
  });

  it('leaves none even to the strict reading, but where aip put controls of its own', () => {
    fc.assert(
      fc.property(withCommands(PIECES), (raw) => {
        expect(runnerCommands(guard(raw), { strict: true })).toEqual([]);
      }),
    );
  });

  it('changes only what it must: text without ":", "#" or invisible characters as it is', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme' }), (raw) => {
        const plain = raw.replace(/[:#\p{Cc}\p{Cf}\p{Default_Ignorable_Code_Point}]/gu, '');
        expect(guard(plain)).toBe(plain);
      }),
    );
  });
});

describe('JSON (exactJson)', () => {
  const value = fc.letrec((tie) => ({
    value: fc.oneof(
      { depthSize: 'small' },
      text([...PIECES, ...OWN_CONTROLS]),
      fc.integer(),
      fc.constant(null),
      fc.array(tie('value'), { maxLength: 4 }),
      fc.dictionary(text(PIECES), tie('value'), { maxKeys: 4 }),
    ),
  })).value;

  it('the same value, never a command, and nothing for the guard to change', () => {
    fc.assert(
      fc.property(value, fc.boolean(), (v, pretty) => {
        const json = exactJson(JSON.stringify(v, null, pretty ? 2 : undefined));
        expect(JSON.parse(json)).toEqual(v);
        expect(guard(json)).toBe(json);
        expect(runnerCommands(json, { strict: true })).toEqual([]);
      }),
    );
  });

  it('escapes as JSON does: "##[" and invisible characters after "#"', () => {
    expect(exactJson(JSON.stringify({ a: 'x ##[warning]y', b: '#\u200b\u{e0041}#[error]' }))).toBe(
      '{"a":"x ##\\u005bwarning]y","b":"#\\u200b\\udb40\\udc41#[error]"}',
    );
    // Elsewhere invisible characters stay (an emoji's joiners, say).
    expect(exactJson('"👩\u200d💻"')).toBe('"👩\u200d💻"');
  });
});

describe('through the IO', () => {
  const guarded = (options: Parameters<typeof fakeIO>[0] = {}) => {
    const made = fakeIO(options);
    guardRunnerLines(made.io);
    return made;
  };

  it('every way text reaches stdout and stderr, a line split over writes included', () => {
    const { io, stdout, stderr } = guarded();
    io.write(':');
    io.write(':warning::x\n#');
    io.out('#[error]y');
    io.err('::error::z');
    io.errWrite(':');
    io.info(':debug::w');
    io.warn('a ##[notice]v');
    expect(stdout.text).toBe(':<U+003A>warning::x\n##<U+005B>error]y\n');
    expect(stderr.text).toBe(':<U+003A>error::z\n:<U+003A>debug::w\nwarning: a ##<U+005B>notice]v\n');
  });

  it("aip's own workflow command on a line of its own, and the guard knows the line is new", () => {
    const { io, stderr } = guarded();
    io.errWrite('half a line');
    io.workflowCommand('::error::own');
    io.errWrite('::warning::x');
    expect(stderr.text).toBe('half a line\n::error::own\n:<U+003A>warning::x');
    expect(runnerCommands(stderr.text).map((c) => c.data)).toEqual(['own']);
  });

  it('JSON, JSON Lines and --jq results: the same values, no command', async () => {
    const value = { a: '\n::warning::x\n', b: 'x ##[error]y', c: '#\u200b#[debug]z' };
    const { io, stdout } = guarded();
    io.json(value);
    io.configure({ jsonl: true });
    io.json([value, value]);
    expect(JSON.parse(stdout.text.slice(0, stdout.text.indexOf('}\n') + 1))).toEqual(value);
    for (const line of stdout.text
      .slice(stdout.text.indexOf('}\n') + 2)
      .trimEnd()
      .split('\n'))
      expect(JSON.parse(line)).toEqual(value);
    expect(runnerCommands(stdout.text, { strict: true })).toEqual([]);

    const jq = guarded();
    await jq.io.useJq('.a, .b, .');
    jq.io.json(value);
    const lines = jq.stdout.text.split('\n');
    expect(lines.slice(0, 4)).toEqual(['', ':<U+003A>warning::x', '', 'x ##<U+005B>error]y']);
    expect(JSON.parse(lines[4]!)).toEqual(value);
    expect(runnerCommands(jq.stdout.text, { strict: true })).toEqual([]);
  });

  it('bytes as they are; no spinner (ora would write past the guard)', () => {
    const { io, stdout } = guarded({ stderrTTY: true });
    const bytes: unknown[] = [];
    const write = stdout.write;
    stdout.write = (chunk: string) => (typeof chunk === 'string' ? write(chunk) : bytes.push(chunk) > 0);
    io.writeBytes(Buffer.from('\n::warning::x'));
    expect(bytes).toEqual([Buffer.from('\n::warning::x')]);
    expect(io.spinnersEnabled).toBe(false);
    expect(fakeIO({ stderrTTY: true }).io.spinnersEnabled).toBe(true);
  });

  it('a stream that goes to a regular file (no runner reads it) as it came', () => {
    const path = join(tempDir('aip-runner-lines-'), 'out.txt');
    const fd = openSync(path, 'w');
    try {
      const file = { write: (chunk: string) => writeSync(fd, chunk) > 0 };
      const { stderr, stdin } = fakeIO();
      const io = new IO({ stdout: file, stderr, stdin, stdoutFd: fd, stderrFd: undefined }, {});
      guardRunnerLines(io);
      io.out('::warning::x');
      io.err('::warning::x');
      expect(readFileSync(path, 'utf8')).toBe('::warning::x\n');
      expect(stderr.text).toBe(':<U+003A>warning::x\n');
    } finally {
      closeSync(fd);
    }
  });
});
