// Splits a stream of OTLP/JSON into its parts without holding a whole document: each resource, scope
// and span comes out on its own, with its JSON path and line, so that a file of any size is read in
// flat memory. The input is one or more ExportTraceServiceRequest documents: JSON Lines (what the
// OpenTelemetry Collector's file exporter writes), one pretty-printed document, or several one after
// another.
//
// A document that fits on one line is parsed whole with JSON.parse (fast, and the usual case for
// JSONL); anything else goes through a small scanner that walks the resourceSpans → scopeSpans →
// spans structure and hands each leaf value to JSON.parse separately.

import { DEFAULT_LINE_BYTES, lineTooLarge } from '../../api/limits.js';
import { isObject } from '../../lib/json.js';
import { findSyntaxError, lineAt, lineOfPath } from '../../validate/locate.js';
import type { JsonPath } from '../otlp/otlp-json.js';

/** A value found in the input, parsed, with where it was. */
export interface Located {
  value: unknown;
  path: JsonPath;
  /** The line the value starts on. */
  line: number;
  /** The line of a value inside this one. */
  lineOf(inner: JsonPath): number;
}

type LocatedKind = 'resource' | 'resourceSchemaUrl' | 'scope' | 'scopeSchemaUrl' | 'span';

export type OtlpJsonEvent =
  | { kind: 'document'; line: number }
  | { kind: 'resourceSpans' | 'scopeSpans'; path: JsonPath; line: number }
  | ({ kind: LocatedKind } & Located)
  | { kind: 'end'; of: 'resourceSpans' | 'scopeSpans' }
  /**
   * Spans already encoded (line-transcoder.ts): span k of `count` is `bytes` from `offsets[first + k]`
   * to `offsets[first + k + 1]`, a `spans` field of ScopeSpans. Valid until the next line is read.
   */
  | { kind: 'encodedSpans'; bytes: Buffer; offsets: number[]; first: number; count: number }
  | { kind: 'problem'; line: number; path?: JsonPath; message: string; span?: true };

/**
 * A one-line document longer than this is scanned instead (memory stays bounded), and so is one
 * longer than a third of the line limit: each of its values is then held, and checked against the
 * limit, on its own (a character is at most three bytes of UTF-8).
 */
const WHOLE_LINE_LIMIT = 8 * 1024 * 1024;

/**
 * A value still being read when it passes this many characters is read on as pieces, each kept as it
 * comes, and joined once at its end, rather than as one text made again with each chunk (which costs
 * a copy of all of it per chunk, and leaves the copies to the garbage collector: 10 times the limit in
 * memory for a value near it).
 */
const PIECES_FROM = 1024 * 1024;

type FrameKind = 'doc' | 'rsArr' | 'rs' | 'ssArr' | 'ss' | 'spansArr';

interface Frame {
  kind: FrameKind;
  /** Objects: key, colon, value, comma. Arrays: first, value, comma. */
  expect: 'key' | 'colon' | 'value' | 'comma' | 'first';
  key: string;
  index: number;
  path: JsonPath;
}

interface Capture {
  /** Offset in the buffer where the value starts, and how far the scan has got. */
  start: number;
  scan: number;
  line: number;
  depth: number;
  inString: boolean;
  /** What the value is, once complete. */
  role: { frame: Frame; key: string | number };
}

function isSpace(c: number): boolean {
  return c === 32 || c === 10 || c === 13 || c === 9 || c === 0xfeff;
}

/**
 * A value (or a property name) over the line limit, passed over without being held: where it started,
 * and the state of the scan through it (strings and nesting), which goes on chunk after chunk.
 */
interface Skip {
  line: number;
  path: JsonPath;
  what: string;
  depth: number;
  inString: boolean;
  escaped: boolean;
  /** A number or a literal: it ends at the first delimiter. */
  scalar: boolean;
  /** A property name: its value comes next. */
  key: boolean;
  /** A value within the limit so far, read as pieces (PIECES_FROM): the capture it was. */
  keep?: { cap: Capture; parts: string[]; size: number };
}

/** Is the character before `end` an escaping backslash (an odd run of them)? */
function endsEscaped(text: string, end: number, from: number): boolean {
  let slashes = 0;
  for (let k = end - 1; k >= from && text.charCodeAt(k) === 92; k--) slashes++;
  return slashes % 2 === 1;
}

/** The index of the quote that ends the string whose opening quote is before `from`, or -1. */
function stringEnd(text: string, from: number): number {
  let q = text.indexOf('"', from);
  while (q !== -1) {
    let slashes = 0;
    for (let k = q - 1; text.charCodeAt(k) === 92; k--) slashes++;
    if (slashes % 2 === 0) return q;
    q = text.indexOf('"', q + 1);
  }
  return -1;
}

function countLines(text: string): number {
  let n = 0;
  for (let k = text.indexOf('\n'); k !== -1; k = text.indexOf('\n', k + 1)) n++;
  return n;
}

export interface SplitterOptions {
  /** The line the text starts on (a worker's piece of a larger file). */
  firstLine?: number;
  /**
   * JSON Lines only: every document is on one line, and a line that is not one is a problem (the
   * text is a piece of a file cut at newlines, where the scanner could not follow a document).
   */
  jsonLines?: boolean;
  /**
   * The line limit (AIP_MAX_LINE_BYTES): the most held at once. A line longer than it is scanned
   * value by value, and a resource, scope or span (or any other value, or a property name) longer
   * than it is a problem at its line, passed over without being held.
   */
  maxLineBytes?: number;
}

/**
 * The longest line parsed whole (a third of the line limit: its text, as a string, and its parsed
 * objects fit in the memory the limit allows); a longer one is scanned value by value.
 */
export function wholeLineBytes(maxLineBytes: number): number {
  return Math.min(WHOLE_LINE_LIMIT, Math.floor(maxLineBytes / 3));
}

export class OtlpJsonSplitter {
  private buf = '';
  private pos = 0;
  private line: number;
  private jsonLines: boolean;
  private readonly limit: number;
  private readonly wholeLine: number;

  constructor(options: SplitterOptions = {}) {
    this.line = options.firstLine ?? 1;
    this.jsonLines = options.jsonLines ?? false;
    this.limit = options.maxLineBytes ?? DEFAULT_LINE_BYTES;
    this.wholeLine = wholeLineBytes(this.limit);
  }
  /** A value over the limit, being passed over. */
  private skip: Skip | undefined;
  /** After a syntax error: the rest of the line is passed over (none of it kept). */
  private skippingLine = false;
  private ended = false;
  private stack: Frame[] = [];
  private capture: Capture | undefined;
  private out: OtlpJsonEvent[] = [];
  private documents = 0;
  /** Where the search for the end of a one-line document got to (it resumes there). */
  private newlineSearchedTo = 0;
  /** After a syntax error: skipping lines until one that starts a document. */
  private resyncing = false;

  push(chunk: string): OtlpJsonEvent[] {
    // Keep only what is not consumed yet (a value being captured, or the token at `pos`).
    const keep = this.keepFrom();
    this.buf = keep >= this.buf.length ? chunk : this.buf.slice(keep) + chunk;
    this.pos -= keep;
    this.newlineSearchedTo = Math.max(0, this.newlineSearchedTo - keep);
    if (this.capture) {
      this.capture.start -= keep;
      this.capture.scan -= keep;
    }
    this.run();
    return this.take();
  }

  end(): OtlpJsonEvent[] {
    this.ended = true;
    this.run();
    if (this.capture || this.stack.length > 0) {
      this.problem(this.line, 'invalid JSON: the input ends inside a document');
      this.stack = [];
      this.capture = undefined;
    }
    return this.take();
  }

  private take(): OtlpJsonEvent[] {
    const events = this.out;
    this.out = [];
    return events;
  }

  private keepFrom(): number {
    return this.capture ? this.capture.start : this.pos;
  }

  /** `span`: the problem is a span's that was passed over (it is counted, as a span). */
  private problem(line: number, message: string, path?: JsonPath, span = false): void {
    const event: OtlpJsonEvent = path
      ? { kind: 'problem', line, path, message }
      : { kind: 'problem', line, message };
    if (span) event.span = true;
    this.out.push(event);
  }

  private run(): void {
    for (;;) {
      if (this.skippingLine) {
        if (!this.skipLine()) return;
        continue;
      }
      if (this.skip) {
        if (!this.continueSkip()) return;
        continue;
      }
      if (this.capture) {
        if (!this.continueCapture()) return;
        continue;
      }
      // Whitespace between tokens (counting lines).
      const { buf } = this;
      let c = buf.charCodeAt(this.pos);
      while (this.pos < buf.length && isSpace(c)) {
        if (c === 10) this.line++;
        c = buf.charCodeAt(++this.pos);
      }
      if (this.pos >= buf.length) return;
      if (this.stack.length === 0) {
        if (!this.topLevel()) return;
      } else if (!this.step(buf[this.pos]!)) return;
    }
  }

  /** At the start of a document. False when more input is needed. */
  private topLevel(): boolean {
    const { buf } = this;
    const line = this.line;
    if (buf[this.pos] !== '{') {
      // Said once: the lines that follow are skipped quietly until one starts a document.
      if (!this.resyncing) this.problem(line, 'expected a JSON object (an OTLP ExportTraceServiceRequest)');
      this.resyncing = true;
      return this.skipLine();
    }
    const newline = buf.indexOf('\n', Math.max(this.pos, this.newlineSearchedTo));
    if (newline === -1 && !this.ended && buf.length - this.pos < this.wholeLine) {
      this.newlineSearchedTo = buf.length;
      return false;
    }
    this.newlineSearchedTo = 0;
    const lineEnd = newline === -1 ? buf.length : newline;
    if (lineEnd - this.pos <= this.wholeLine) {
      const text = buf.slice(this.pos, lineEnd);
      let doc: unknown;
      try {
        doc = JSON.parse(text);
      } catch {
        doc = undefined; // several lines, or several documents, or a syntax error
      }
      // While skipping the rest of a broken document, a line of it that happens to parse ({"name": …})
      // is not taken for the next document: that has resourceSpans.
      if (doc !== undefined && this.resyncing && !(isObject(doc) && 'resourceSpans' in doc)) {
        this.pos = lineEnd;
        return true;
      }
      if (doc !== undefined) {
        this.pos = lineEnd;
        this.resyncing = false;
        // A first document on a line of its own: the input is JSON Lines, and each line stands alone
        // (a broken line is reported, not read as the start of a document that goes on below).
        if (this.documents === 0) this.jsonLines = true;
        this.walkDocument(doc, line);
        return true;
      }
      if (this.jsonLines) return this.brokenLine(text, lineEnd, line);
    }
    // Several lines, several documents on one, or a line too long to hold: scanned, value by value.
    this.resyncing = false;
    this.out.push({ kind: 'document', line });
    this.documents++;
    this.stack.push({ kind: 'doc', expect: 'key', key: '', index: 0, path: [] });
    this.pos++;
    return true;
  }

  /**
   * JSON Lines, a line that is not a document: a syntax error there, or (the error at its very end)
   * a document carried on over the lines below, which JSON Lines cannot have. That is said once, and
   * the lines after it are skipped until one is a document again.
   */
  private brokenLine(text: string, lineEnd: number, line: number): boolean {
    this.pos = lineEnd;
    if (this.resyncing) return true;
    const located = findSyntaxError(text);
    if (!located || located.offset >= text.trimEnd().length) {
      this.problem(
        line,
        'a document that does not end on its line: JSON Lines needs each document on one line',
      );
      this.resyncing = true;
      return true;
    }
    this.problem(line, `invalid JSON (column ${located.offset + 1}): ${located.message}`);
    return true;
  }

  /**
   * Gives up on the rest of the line after a syntax error, and starts again on the next. What is
   * passed over is not kept: a line of any length costs no memory.
   */
  private skipLine(): boolean {
    this.stack = [];
    const newline = this.buf.indexOf('\n', this.pos);
    if (newline === -1) {
      this.pos = this.buf.length;
      this.skippingLine = !this.ended;
      return this.ended;
    }
    this.skippingLine = false;
    this.pos = newline; // the newline itself is counted by the whitespace loop
    return true;
  }

  private syntaxError(found: string, expected: string): boolean {
    this.problem(this.line, `invalid JSON: expected ${expected}, found ${JSON.stringify(found)}`);
    // The rest of this document cannot be read; the next line that starts one is tried.
    this.resyncing = true;
    return this.skipLine();
  }

  /** One token inside a document. False when more input is needed. */
  private step(ch: string): boolean {
    const frame = this.stack.at(-1)!;
    const isArray = frame.kind === 'rsArr' || frame.kind === 'ssArr' || frame.kind === 'spansArr';
    if (isArray) {
      if ((frame.expect === 'first' || frame.expect === 'comma') && ch === ']') return this.close();
      if (frame.expect === 'comma') {
        if (ch !== ',') return this.syntaxError(ch, "',' or ']'");
        frame.expect = 'value';
        this.pos++;
        return true;
      }
      return this.element(frame, ch);
    }
    switch (frame.expect) {
      case 'key': {
        if (ch === '}') return this.close();
        if (ch !== '"') return this.syntaxError(ch, "a property name or '}'");
        const end = stringEnd(this.buf, this.pos + 1);
        if (end === -1) {
          if (this.ended) return this.syntaxError('end of input', 'a closing quote');
          if (this.buf.length - this.pos <= this.limit) return false;
          // A property name over the limit: passed over; its value is then an unknown field's.
          this.startSkip(this.pos, this.line, frame.path, 'a property name', {
            depth: 0,
            inString: true,
            scalar: false,
            key: true,
          });
          return true;
        }
        const raw = this.buf.slice(this.pos, end + 1);
        if (raw.length > this.limit / 3 && Buffer.byteLength(raw) > this.limit) {
          // Held whole (it ended in the chunk that took it over the limit): still over it, in bytes.
          this.problem(this.line, lineTooLarge(this.limit, 'a property name'), frame.path);
          frame.key = '\u0000';
        } else frame.key = raw.includes('\\') ? (JSON.parse(raw) as string) : raw.slice(1, -1);
        frame.expect = 'colon';
        this.pos = end + 1;
        return true;
      }
      case 'colon':
        if (ch !== ':') return this.syntaxError(ch, "':'");
        frame.expect = 'value';
        this.pos++;
        return true;
      case 'comma':
        if (ch === '}') return this.close();
        if (ch !== ',') return this.syntaxError(ch, "',' or '}'");
        frame.expect = 'key';
        this.pos++;
        return true;
      default:
        return this.member(frame, ch);
    }
  }

  /** The value of an object member: a structure to descend into, or a value to capture. */
  private member(frame: Frame, ch: string): boolean {
    frame.expect = 'comma';
    const into: Partial<Record<FrameKind, [string, FrameKind]>> = {
      doc: ['resourceSpans', 'rsArr'],
      rs: ['scopeSpans', 'ssArr'],
      ss: ['spans', 'spansArr'],
    };
    const [key, child] = into[frame.kind] ?? [];
    if (ch === '[' && frame.key === key && child) {
      this.stack.push({ kind: child, expect: 'first', key: '', index: 0, path: [...frame.path, key] });
      this.pos++;
      return true;
    }
    return this.startCapture(frame, frame.key);
  }

  /** An element of one of the three arrays. */
  private element(frame: Frame, ch: string): boolean {
    const index = frame.index++;
    frame.expect = 'comma';
    if (frame.kind !== 'spansArr' && ch === '{') {
      const kind = frame.kind === 'rsArr' ? 'rs' : 'ss';
      const path = [...frame.path, index];
      this.out.push({ kind: kind === 'rs' ? 'resourceSpans' : 'scopeSpans', path, line: this.line });
      this.stack.push({ kind, expect: 'key', key: '', index: 0, path });
      this.pos++;
      return true;
    }
    return this.startCapture(frame, index);
  }

  private close(): boolean {
    const frame = this.stack.pop()!;
    this.pos++;
    if (frame.kind === 'rs') this.out.push({ kind: 'end', of: 'resourceSpans' });
    if (frame.kind === 'ss') this.out.push({ kind: 'end', of: 'scopeSpans' });
    return true;
  }

  private startCapture(frame: Frame, key: string | number): boolean {
    this.capture = {
      start: this.pos,
      scan: this.pos,
      line: this.line,
      depth: 0,
      inString: false,
      role: { frame, key },
    };
    return true;
  }

  /** Scans on to the end of the captured value. False when more input is needed. */
  private continueCapture(): boolean {
    const cap = this.capture!;
    const { buf } = this;
    const first = buf[cap.start];
    let i = cap.scan;
    let end = -1;
    if (first === '"' || first === '{' || first === '[') {
      if (cap.inString) {
        const q = stringEnd(buf, i);
        if (q === -1) {
          cap.scan = Math.max(i, buf.length - 1);
          return this.incomplete();
        }
        i = q + 1;
        cap.inString = false;
        if (cap.depth === 0) end = i;
      }
      while (end === -1 && i < buf.length) {
        const c = buf.charCodeAt(i);
        if (c === 34) {
          const q = stringEnd(buf, i + 1);
          if (q === -1) {
            cap.inString = true;
            cap.scan = i + 1;
            return this.incomplete();
          }
          i = q + 1;
          if (cap.depth === 0) end = i;
          continue;
        }
        if (c === 123 || c === 91) cap.depth++;
        else if (c === 125 || c === 93) {
          if (--cap.depth === 0) end = i + 1;
        }
        i++;
      }
    } else {
      while (i < buf.length) {
        const c = buf.charCodeAt(i);
        if (c === 44 || c === 125 || c === 93 || isSpace(c)) break;
        i++;
      }
      if (i < buf.length || this.ended) end = i;
    }
    if (end === -1) {
      cap.scan = i;
      return this.incomplete();
    }
    const text = buf.slice(cap.start, end);
    this.capture = undefined;
    this.pos = end;
    this.line += countLines(text);
    this.captured(cap, text);
    return true;
  }

  private incomplete(): boolean {
    const cap = this.capture!;
    const held = this.buf.length - cap.start;
    if (!this.ended && held > Math.min(PIECES_FROM, this.limit)) {
      // A long value: read on in pieces; over the limit, what was read of it goes, and the rest is
      // passed over, not kept.
      const first = this.buf[cap.start];
      this.capture = undefined;
      this.startSkip(
        cap.start,
        cap.line,
        [...cap.role.frame.path, cap.role.key],
        this.describe(cap),
        {
          depth: cap.depth,
          inString: cap.inString,
          scalar: first !== '"' && first !== '{' && first !== '[',
          key: false,
        },
        held <= this.limit ? cap : undefined,
      );
      return true;
    }
    if (!this.ended) return false;
    this.problem(this.capture!.line, 'invalid JSON: the input ends inside a value');
    this.capture = undefined;
    this.stack = [];
    this.pos = this.buf.length;
    return true;
  }

  /** What a captured value is, for a message: "the span", "the resource", "the scope", "the value". */
  private describe(cap: Capture): string {
    const { frame, key } = cap.role;
    if (frame.kind === 'spansArr') return 'the span';
    if (frame.kind === 'rs' && key === 'resource') return 'the resource';
    if (frame.kind === 'ss' && key === 'scope') return 'the scope';
    return 'the value';
  }

  /**
   * Passes over a value (or a property name) from `start`, where the scan has got to the end of the
   * buffer: nothing of it is kept from here on, only the state of the scan.
   */
  private startSkip(
    start: number,
    line: number,
    path: JsonPath,
    what: string,
    state: { depth: number; inString: boolean; scalar: boolean; key: boolean },
    keep?: Capture,
  ): void {
    const { buf } = this;
    const read = buf.slice(start);
    this.line += countLines(read);
    this.skip = {
      line,
      path,
      what,
      ...state,
      escaped: state.inString && endsEscaped(buf, buf.length, start + 1),
      keep: keep && { cap: keep, parts: [read], size: read.length },
    };
    this.pos = buf.length;
  }

  /** Scans on through a value being passed over. False when more input is needed. */
  private continueSkip(): boolean {
    const sk = this.skip!;
    const { buf } = this;
    let i = this.pos;
    let end = -1;
    // Lines are counted as the scan passes them (a string, which has none when it is valid JSON, is
    // jumped over whole).
    let newline = buf.indexOf('\n', i);
    const countTo = (to: number) => {
      while (newline !== -1 && newline < to) {
        this.line++;
        newline = buf.indexOf('\n', newline + 1);
      }
    };
    while (i < buf.length) {
      if (sk.inString) {
        if (sk.escaped) {
          sk.escaped = false;
          i++;
          continue;
        }
        // To the next quote that is not escaped (the backslashes before it are all in this buffer:
        // at i nothing is escaped).
        let q = buf.indexOf('"', i);
        while (q !== -1 && endsEscaped(buf, q, i)) q = buf.indexOf('"', q + 1);
        if (q === -1) {
          sk.escaped = endsEscaped(buf, buf.length, i);
          i = buf.length;
          break;
        }
        sk.inString = false;
        i = q + 1;
        if (sk.depth === 0) {
          end = i;
          break;
        }
        continue;
      }
      const c = buf.charCodeAt(i);
      if (sk.scalar) {
        if (c === 44 || c === 125 || c === 93 || isSpace(c)) {
          end = i;
          break;
        }
      } else if (c === 34) sk.inString = true;
      else if (c === 123 || c === 91) sk.depth++;
      else if ((c === 125 || c === 93) && --sk.depth === 0) {
        end = i + 1;
        break;
      }
      i++;
    }
    const to = end === -1 ? buf.length : end;
    countTo(to);
    const { keep } = sk;
    if (keep && to > this.pos) {
      keep.parts.push(buf.slice(this.pos, to));
      keep.size += to - this.pos;
      if (keep.size > this.limit) sk.keep = undefined;
    }
    this.pos = to;
    if (end === -1 && !this.ended) return false;
    this.skip = undefined;
    if (sk.keep) {
      if (end === -1) {
        this.problem(sk.line, 'invalid JSON: the input ends inside a value');
        this.stack = [];
      } else this.captured(sk.keep.cap, sk.keep.parts.join(''));
      return true;
    }
    this.problem(sk.line, lineTooLarge(this.limit, sk.what), sk.path, sk.what === 'the span');
    if (sk.key) {
      const frame = this.stack.at(-1)!;
      frame.key = '\u0000'; // no field of OTLP's: the value is ignored, as an unknown field's
      frame.expect = 'colon';
    }
    return true;
  }

  private captured(cap: Capture, text: string): void {
    const { frame, key } = cap.role;
    // Held whole (it ended in the chunk that took it over the limit): still over it, in bytes.
    if (text.length > this.limit / 3 && Buffer.byteLength(text) > this.limit) {
      const what = this.describe(cap);
      this.problem(cap.line, lineTooLarge(this.limit, what), [...frame.path, key], what === 'the span');
      return;
    }
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      const located = findSyntaxError(text);
      const line = located ? lineAt(text, located.offset, cap.line) : cap.line;
      this.problem(line, `invalid JSON: ${located?.message ?? (error as Error).message}`);
      return;
    }
    const path = [...frame.path, key];
    const located = (kind: LocatedKind): void => {
      this.out.push({
        kind,
        value,
        path,
        line: cap.line,
        lineOf: (inner) => lineOfPath(text, inner, cap.line),
      });
    };
    const kind: LocatedKind | undefined =
      frame.kind === 'spansArr'
        ? 'span'
        : frame.kind === 'rs' && key === 'resource'
          ? 'resource'
          : frame.kind === 'rs' && key === 'schemaUrl'
            ? 'resourceSchemaUrl'
            : frame.kind === 'ss' && key === 'scope'
              ? 'scope'
              : frame.kind === 'ss' && key === 'schemaUrl'
                ? 'scopeSchemaUrl'
                : undefined;
    if (kind) {
      located(kind);
      return;
    }
    if (frame.kind === 'rsArr' || frame.kind === 'ssArr') {
      this.problem(cap.line, `expected an object, not ${JSON.stringify(value)}`, path);
      return;
    }
    const list = { doc: 'resourceSpans', rs: 'scopeSpans', ss: 'spans' }[frame.kind as 'doc' | 'rs' | 'ss'];
    if (key === list && value !== null)
      this.problem(cap.line, `expected an array, not ${JSON.stringify(value)}`, path);
    // Anything else is a field this version of OTLP does not know: ignored, as receivers must.
  }

  /** A document parsed whole (one line): the same events as the scanner gives. */
  private walkDocument(doc: unknown, line: number): void {
    this.out.push({ kind: 'document', line });
    this.documents++;
    const lineOf = () => line;
    const at = (kind: LocatedKind, value: unknown, path: JsonPath): void => {
      this.out.push({ kind, value, path, line, lineOf });
    };
    const list = (value: unknown, path: JsonPath): unknown[] => {
      if (value === undefined || value === null) return [];
      if (Array.isArray(value)) return value;
      this.problem(line, `expected an array, not ${JSON.stringify(value)}`, path);
      return [];
    };
    if (!isObject(doc)) {
      this.problem(line, 'expected a JSON object (an OTLP ExportTraceServiceRequest)');
      return;
    }
    list(doc.resourceSpans, ['resourceSpans']).forEach((rs, i) => {
      const rsPath = ['resourceSpans', i];
      if (!isObject(rs)) {
        this.problem(line, `expected an object, not ${JSON.stringify(rs)}`, rsPath);
        return;
      }
      this.out.push({ kind: 'resourceSpans', path: rsPath, line });
      if (rs.resource !== undefined) at('resource', rs.resource, [...rsPath, 'resource']);
      if (rs.schemaUrl !== undefined) at('resourceSchemaUrl', rs.schemaUrl, [...rsPath, 'schemaUrl']);
      list(rs.scopeSpans, [...rsPath, 'scopeSpans']).forEach((ss, j) => {
        const ssPath = [...rsPath, 'scopeSpans', j];
        if (!isObject(ss)) {
          this.problem(line, `expected an object, not ${JSON.stringify(ss)}`, ssPath);
          return;
        }
        this.out.push({ kind: 'scopeSpans', path: ssPath, line });
        if (ss.scope !== undefined) at('scope', ss.scope, [...ssPath, 'scope']);
        if (ss.schemaUrl !== undefined) at('scopeSchemaUrl', ss.schemaUrl, [...ssPath, 'schemaUrl']);
        const spans = list(ss.spans, [...ssPath, 'spans']);
        for (let k = 0; k < spans.length; k++) at('span', spans[k], [...ssPath, 'spans', k]);
        this.out.push({ kind: 'end', of: 'scopeSpans' });
      });
      this.out.push({ kind: 'end', of: 'resourceSpans' });
    });
  }

  /**
   * A line the caller read itself (a whole document, line-transcoder.ts), between lines pushed here:
   * counted as a line and a document, and, being a document, it ends any skipping after a broken one.
   */
  passLine(): void {
    this.line++;
    this.documents++;
    this.resyncing = false;
  }

  /**
   * Whether everything pushed so far is read, with no document open: a line the caller reads itself
   * can only be one that stands alone. After a long line scanned value by value, the splitter may
   * still be inside its document, and the next lines are that document's to read (or to refuse).
   */
  get betweenDocuments(): boolean {
    return (
      this.stack.length === 0 &&
      !this.capture &&
      !this.skip &&
      !this.skippingLine &&
      this.pos >= this.buf.length
    );
  }

  get documentCount(): number {
    return this.documents;
  }
}

/** The events of a stream of text chunks. */
export async function* otlpJsonEvents(
  chunks: AsyncIterable<string>,
  options: SplitterOptions = {},
): AsyncGenerator<OtlpJsonEvent> {
  const splitter = new OtlpJsonSplitter(options);
  for await (const chunk of chunks) yield* splitter.push(chunk);
  yield* splitter.end();
}
