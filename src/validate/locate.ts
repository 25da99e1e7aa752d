// Where things are in a JSON text. JSON.parse is fast but says little about where a problem is, so a
// document that fails (bad syntax, or a value the schema refuses) is scanned again here: to find the
// offset of a syntax error, or of the value at a path. Both scans are iterative, linear in the text
// and need no stack however deep the nesting (hostile input must not crash the checker).

import type { Path } from './schema.js';

export interface JsonSyntaxProblem {
  message: string;
  offset: number;
}

const isWs = (ch: string | undefined) => ch === ' ' || ch === '\t' || ch === '\n' || ch === '\r';
const NUMBER_OR_LITERAL = /true|false|null|-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const ESCAPES = new Set(['"', '\\', '/', 'b', 'f', 'n', 'r', 't']);

const shown = (ch: string | undefined) => (ch === undefined ? 'the end of the input' : JSON.stringify(ch));

class Scanner {
  i = 0;
  constructor(readonly text: string) {}

  skipWs(): void {
    while (isWs(this.text[this.i])) this.i++;
  }

  /** Moves past a string starting at i; a problem if it is malformed. */
  string(): JsonSyntaxProblem | undefined {
    const start = this.i;
    const text = this.text;
    this.i++;
    while (this.i < text.length) {
      const ch = text[this.i]!;
      if (ch === '"') {
        this.i++;
        return undefined;
      }
      if (ch === '\\') {
        const esc = text[this.i + 1];
        if (esc === 'u') {
          if (!/^[0-9a-fA-F]{4}$/.test(text.slice(this.i + 2, this.i + 6)))
            return { message: 'invalid \\u escape in a string', offset: this.i };
          this.i += 6;
        } else if (esc !== undefined && ESCAPES.has(esc)) this.i += 2;
        else return { message: `invalid escape \\${esc ?? ''} in a string`, offset: this.i };
        continue;
      }
      if (ch < ' ')
        return { message: 'a control character (a raw line break?) inside a string', offset: this.i };
      this.i++;
    }
    return { message: 'a string is not closed', offset: start };
  }

  /** Moves past a number or true/false/null; false if there is none here. */
  scalar(): boolean {
    NUMBER_OR_LITERAL.lastIndex = this.i;
    const match = NUMBER_OR_LITERAL.exec(this.text);
    if (!match) return false;
    this.i += match[0].length;
    return true;
  }

  /** The decoded value of the (valid) string starting at i, moving past it. */
  stringValue(): string {
    const start = this.i;
    this.string();
    return JSON.parse(this.text.slice(start, this.i)) as string;
  }

  /** Moves past one (valid) value of any kind, counting brackets outside strings. */
  skipValue(): void {
    const text = this.text;
    const ch = text[this.i];
    if (ch === '"') {
      this.string();
      return;
    }
    if (ch !== '{' && ch !== '[') {
      this.scalar();
      return;
    }
    let depth = 0;
    while (this.i < text.length) {
      const c = text[this.i]!;
      if (c === '"') {
        this.string();
        continue;
      }
      if (c === '{' || c === '[') depth++;
      else if (c === '}' || c === ']') depth--;
      this.i++;
      if (depth === 0) return;
    }
  }
}

/** The first syntax error of a JSON text (its message and offset), or undefined if there is none. */
export function findSyntaxError(text: string): JsonSyntaxProblem | undefined {
  const s = new Scanner(text);
  const stack: Array<'{' | '['> = [];
  // What comes next: a value, a value or ']' (just after '['), a key or '}' (just after '{'), a key
  // (after ',' in an object), or what follows a value (',', a closing bracket, or the end).
  let expect: 'value' | 'value-or-end' | 'key-or-end' | 'key' | 'after' = 'value';
  const fail = (message: string): JsonSyntaxProblem => ({ message, offset: s.i });
  for (;;) {
    s.skipWs();
    const ch = text[s.i];
    if (expect === 'value-or-end' || expect === 'key-or-end') {
      if (ch === (expect === 'value-or-end' ? ']' : '}')) {
        stack.pop();
        s.i++;
        expect = 'after';
        continue;
      }
      expect = expect === 'value-or-end' ? 'value' : 'key';
    }
    if (expect === 'value') {
      if (ch === '{' || ch === '[') {
        stack.push(ch);
        s.i++;
        expect = ch === '{' ? 'key-or-end' : 'value-or-end';
        continue;
      }
      if (ch === '"') {
        const problem = s.string();
        if (problem) return problem;
      } else if (!s.scalar()) {
        return fail(
          ch === undefined
            ? 'unexpected end of the input: expected a value'
            : `unexpected ${shown(ch)}: expected a value`,
        );
      }
      expect = 'after';
      continue;
    }
    if (expect === 'key') {
      if (ch !== '"') return fail(`expected a property name in double quotes, found ${shown(ch)}`);
      const problem = s.string();
      if (problem) return problem;
      s.skipWs();
      if (text[s.i] !== ':') return fail(`expected ':' after a property name, found ${shown(text[s.i])}`);
      s.i++;
      expect = 'value';
      continue;
    }
    // after a value
    const top = stack.at(-1);
    if (top === undefined) {
      return ch === undefined ? undefined : fail(`unexpected ${shown(ch)} after the end of the value`);
    }
    const close = top === '{' ? '}' : ']';
    if (ch === ',') {
      s.i++;
      expect = top === '{' ? 'key' : 'value';
    } else if (ch === close) {
      stack.pop();
      s.i++;
    } else {
      return fail(
        `expected ',' or '${close}' after ${top === '{' ? 'a property value' : 'an array element'}, found ${shown(ch)}`,
      );
    }
  }
}

/**
 * The offset of the value at `path` in a valid JSON text, or of its deepest ancestor that exists (a
 * missing field is reported where its object starts).
 */
export function offsetOfPath(text: string, path: Path): number {
  const s = new Scanner(text);
  s.skipWs();
  let found = s.i;
  for (const part of path) {
    const open = text[s.i];
    if (!((open === '{' && typeof part === 'string') || (open === '[' && typeof part === 'number')))
      return found;
    s.i++;
    let index = 0;
    let located = false;
    for (;;) {
      s.skipWs();
      if (text[s.i] === '}' || text[s.i] === ']' || s.i >= text.length) return found;
      let matches: boolean;
      if (open === '{') {
        const key = s.stringValue();
        s.skipWs();
        s.i++; // ':'
        s.skipWs();
        matches = key === part;
      } else {
        matches = index === part;
      }
      if (matches) {
        found = s.i;
        located = true;
        break;
      }
      s.skipValue();
      s.skipWs();
      if (text[s.i] === ',') s.i++;
      index++;
    }
    if (!located) return found;
  }
  return found;
}

/** The 1-based line (counted from `firstLine`) of an offset in `text`. */
export function lineAt(text: string, offset: number, firstLine: number): number {
  let line = firstLine;
  for (let k = text.indexOf('\n'); k !== -1 && k < offset; k = text.indexOf('\n', k + 1)) line++;
  return line;
}

/** The line of the value at `path` (see offsetOfPath). */
export function lineOfPath(text: string, path: Path, firstLine: number): number {
  return lineAt(text, offsetOfPath(text, path), firstLine);
}
