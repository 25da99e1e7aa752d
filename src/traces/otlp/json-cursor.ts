// A strict JSON reader over bytes, for transcoding OTLP/JSON to protobuf without JSON.parse (see
// span-transcoder.ts). It reads only what it is told to expect and throws `GIVE_UP` at anything else —
// a syntax error, an escape it would have to guess at, a key it does not know — so that the caller
// can read that input the ordinary way, which says what is wrong and where. It never accepts text
// JSON.parse would refuse.

import { isUtf8 } from 'node:buffer';

/** Thrown (one object, no stack to capture) when the input is not what the fast reader takes. */
export const GIVE_UP = Object.freeze({ giveUp: true });

export function giveUp(): never {
  throw GIVE_UP;
}

export const QUOTE = 34;
const BACKSLASH = 92;
export const OPEN_OBJECT = 123;
export const CLOSE_OBJECT = 125;
export const OPEN_ARRAY = 91;
export const CLOSE_ARRAY = 93;
const COLON = 58;
const COMMA = 44;
const MINUS = 45;

const NULL = Buffer.from('null');
const TRUE = Buffer.from('true');
const FALSE = Buffer.from('false');

/** Keys as bytes, looked up by length first: a key of a message is matched without making a string. */
export function keyTable(names: readonly string[]): Buffer[] {
  return names.map((name) => Buffer.from(name, 'latin1'));
}

export class JsonCursor {
  /** Where the last string's content starts and ends (between its quotes). */
  strStart = 0;
  strEnd = 0;
  /** The last string had an escape (`\`) in it. */
  strEscaped = false;

  constructor(
    public src: Buffer,
    public pos: number,
    public end: number,
  ) {}

  /** Skips white space; the byte after it (or -1 at the end). */
  peek(): number {
    const src = this.src;
    let pos = this.pos;
    const end = this.end;
    while (pos < end) {
      const c = src[pos]!;
      if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) break;
      pos++;
    }
    this.pos = pos;
    return pos < end ? src[pos]! : -1;
  }

  expect(c: number): void {
    if (this.peek() !== c) giveUp();
    this.pos++;
  }

  /** After a member or element: true if another follows (a comma), false at `close`. */
  more(close: number): boolean {
    const c = this.peek();
    this.pos++;
    if (c === COMMA) return true;
    if (c !== close) giveUp();
    return false;
  }

  /** An opening bracket, and whether the object or array is empty (then its closing one is read too). */
  open(c: number, close: number): boolean {
    this.expect(c);
    if (this.peek() === close) {
      this.pos++;
      return false;
    }
    return true;
  }

  /** The literal `null`, if that is what comes next (read); false, with nothing read, if not. */
  isNull(): boolean {
    if (this.peek() !== 0x6e) return false;
    this.literal(NULL);
    return true;
  }

  boolean(): boolean {
    const c = this.peek();
    if (c === 0x74) {
      this.literal(TRUE);
      return true;
    }
    if (c === 0x66) {
      this.literal(FALSE);
      return false;
    }
    return giveUp();
  }

  private literal(word: Buffer): void {
    const src = this.src;
    if (this.pos + word.length > this.end) giveUp();
    for (let k = 0; k < word.length; k++) if (src[this.pos + k] !== word[k]) giveUp();
    this.pos += word.length;
  }

  /**
   * A string: sets strStart/strEnd/strEscaped. Control characters (which JSON forbids raw) and UTF-8
   * that is not well formed (which decoding would have replaced) give up.
   */
  string(): void {
    this.expect(QUOTE);
    const src = this.src;
    const end = this.end;
    let pos = this.pos;
    let escaped = false;
    let high = false;
    for (;;) {
      if (pos >= end) giveUp();
      const c = src[pos]!;
      if (c === QUOTE) break;
      if (c < 0x20) giveUp();
      if (c === BACKSLASH) {
        escaped = true;
        pos += 2;
        continue;
      }
      if (c >= 0x80) high = true;
      pos++;
    }
    if (pos >= end) giveUp();
    this.strStart = this.pos;
    this.strEnd = pos;
    this.strEscaped = escaped;
    this.pos = pos + 1;
    if (high && !isUtf8(src.subarray(this.strStart, pos))) giveUp();
  }

  /** A string with no escapes in it (ids, numbers in strings, base64): its bounds. */
  plainString(): void {
    this.string();
    if (this.strEscaped) giveUp();
  }

  /** A key among `keys` and its colon: its index. A key not among them gives up. */
  key(keys: Buffer[]): number {
    this.plainString();
    const src = this.src;
    const start = this.strStart;
    const length = this.strEnd - start;
    for (let k = 0; k < keys.length; k++) {
      const key = keys[k]!;
      if (key.length !== length) continue;
      let i = 0;
      while (i < length && src[start + i] === key[i]) i++;
      if (i === length) {
        this.expect(COLON);
        return k;
      }
    }
    return giveUp();
  }

  /**
   * A JSON number (its grammar checked: JSON.parse would refuse `01`, `.5`, `1.` or `+1`); its bounds
   * in numStart/numEnd, and whether it is a plain integer of at most 15 digits (`numSmall`, then its
   * value in `numValue`).
   */
  numStart = 0;
  numEnd = 0;
  numSmall = false;
  numValue = 0;
  number(): void {
    const src = this.src;
    const end = this.end;
    this.peek();
    const start = this.pos;
    let pos = start;
    const negative = src[pos] === MINUS;
    if (negative) pos++;
    const digitsStart = pos;
    let value = 0;
    if (src[pos] === 0x30) pos++;
    else {
      if (!(pos < end && src[pos]! >= 0x31 && src[pos]! <= 0x39)) giveUp();
      while (pos < end && src[pos]! >= 0x30 && src[pos]! <= 0x39) value = value * 10 + (src[pos++]! - 0x30);
    }
    const digits = pos - digitsStart;
    let integer = true;
    if (pos < end && src[pos] === 0x2e) {
      integer = false;
      pos++;
      const from = pos;
      while (pos < end && src[pos]! >= 0x30 && src[pos]! <= 0x39) pos++;
      if (pos === from) giveUp();
    }
    if (pos < end && (src[pos] === 0x65 || src[pos] === 0x45)) {
      integer = false;
      pos++;
      if (pos < end && (src[pos] === 0x2b || src[pos] === MINUS)) pos++;
      const from = pos;
      while (pos < end && src[pos]! >= 0x30 && src[pos]! <= 0x39) pos++;
      if (pos === from) giveUp();
    }
    this.numStart = start;
    this.numEnd = pos;
    this.numSmall = integer && digits <= 15;
    this.numValue = negative ? -value : value;
    this.pos = pos;
  }

  /** The number just read, as JSON.parse gives it. */
  numberValue(): number {
    return this.numSmall ? this.numValue : Number(this.src.toString('latin1', this.numStart, this.numEnd));
  }

  /** Passes over any value (checked only as far as finding its end: the caller parses it). */
  skipValue(): void {
    const c = this.peek();
    if (c === QUOTE) {
      this.string();
      return;
    }
    if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
      const src = this.src;
      let depth = 0;
      let pos = this.pos;
      while (pos < this.end) {
        const b = src[pos]!;
        if (b === QUOTE) {
          this.pos = pos;
          this.string();
          pos = this.pos;
          continue;
        }
        if (b === OPEN_OBJECT || b === OPEN_ARRAY) depth++;
        else if (b === CLOSE_OBJECT || b === CLOSE_ARRAY) {
          depth--;
          if (depth === 0) {
            this.pos = pos + 1;
            return;
          }
        }
        pos++;
      }
      giveUp();
    }
    if (c === MINUS || (c >= 0x30 && c <= 0x39)) {
      this.number();
      return;
    }
    if (c === 0x74 || c === 0x66) {
      this.boolean();
      return;
    }
    if (!this.isNull()) giveUp();
  }
}
