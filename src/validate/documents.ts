// Splits a stream of JSON into its documents without holding the whole file: JSON Lines (one document
// per line; blank lines skipped) or one JSON array (each element a document), told apart by the first
// character. Each document comes with the line it starts on, so that problems can be reported as
// file:line. A byte-order mark and CRLF line ends are accepted.
//
// The bytes are split before they are decoded (a newline, a quote or a bracket is never part of a
// multi-byte UTF-8 character), so that a document is decoded once, and so that no more than the line
// limit of one document is ever held: a longer line, or element, is passed over to its end without
// being kept, and comes out as a `tooLarge` event at its line. Memory stays within a few times the
// limit (src/api/limits.ts) whatever the file.

import { DEFAULT_LINE_BYTES } from '../api/limits.js';

export type DocumentFormat = 'jsonl' | 'array';

export interface JsonDocument {
  text: string;
  /** 1-based line of the document's first character. */
  line: number;
  /** 0-based position among the documents. */
  index: number;
}

/** Something wrong with the file's framing itself (not with one document). */
export interface FramingProblem {
  problem: string;
  line: number;
}

export type DocumentEvent =
  | { kind: 'format'; format: DocumentFormat }
  | ({ kind: 'document' } & JsonDocument)
  | ({ kind: 'problem' } & FramingProblem)
  /** A document longer than the limit, passed over unread: a problem at its line. */
  | { kind: 'tooLarge'; line: number; index: number };

export interface ReadOptions {
  /** The most of one document (a line, or an element of an array) held at a time. */
  maxLineBytes?: number;
}

const isSpace = (code: number) => code === 32 || code === 9 || code === 10 || code === 13;

function allSpace(bytes: Uint8Array, from = 0, to = bytes.length): boolean {
  for (let i = from; i < to; i++) if (!isSpace(bytes[i]!)) return false;
  return true;
}

const BOM = [0xef, 0xbb, 0xbf];

/** The splitting, fed a chunk of bytes at a time. */
class DocumentSplitter {
  private mode: 'detect' | DocumentFormat = 'detect';
  private out: DocumentEvent[] = [];
  private line = 1;
  private index = 0;
  /** The start of the stream, while it may still be a byte-order mark. */
  private head: Buffer | undefined = Buffer.alloc(0);

  // The document being read: its bytes so far, or (over the limit) none and `skipping`.
  private parts: Buffer[] = [];
  private size = 0;
  private skipping = false;
  /** JSON Lines, a line over the limit: nothing but white space in it so far (then it is no problem). */
  private blank = true;

  // Array state.
  private depth = 0; // 0: before/after the array, 1: inside it, >1: inside an element
  private inString = false;
  private escaped = false;
  private inElement = false;
  private elementLine = 0;
  private closed = false;
  private trailingReported = false;
  /** Just after '[' or ',': a value must come next (after ',' a ']' is a trailing comma). */
  private afterComma = false;
  private commaLine = 0;
  /** The last line with anything on it, where an unclosed array is reported. */
  private lastContentLine = 1;

  constructor(private readonly limit: number) {}

  push(chunk: Buffer): DocumentEvent[] {
    this.feed(chunk);
    return this.take();
  }

  private feed(chunk: Buffer): void {
    if (this.head) {
      const head = this.head.length ? Buffer.concat([this.head, chunk]) : chunk;
      const prefix = head.length < 3 && head.every((byte, i) => byte === BOM[i]);
      if (prefix) {
        this.head = head;
        return;
      }
      this.head = undefined;
      chunk = head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf ? head.subarray(3) : head;
    }
    let from = 0;
    if (this.mode === 'detect') from = this.detect(chunk);
    if (this.mode === 'jsonl') this.jsonLines(chunk, from);
    else if (this.mode === 'array') this.array(chunk, from);
  }

  end(): DocumentEvent[] {
    if (this.head?.length) {
      const head = this.head;
      this.head = undefined;
      this.feed(head);
    }
    if (this.mode === 'detect') {
      // Nothing but white space (or nothing at all): JSON Lines with no documents.
      this.mode = 'jsonl';
      this.out.push({ kind: 'format', format: 'jsonl' });
    }
    if (this.mode === 'jsonl') {
      if (this.size > 0 || this.skipping) this.endLine(Buffer.alloc(0), 0, 0);
    } else this.endArray();
    return this.take();
  }

  private take(): DocumentEvent[] {
    const events = this.out;
    this.out = [];
    return events;
  }

  /**
   * Before the first character that is not white space: lines are counted (and the white space of
   * the line that turns out to be the first document's is kept, as part of it). Returns where the
   * format's own reading takes over.
   */
  private detect(chunk: Buffer): number {
    let lineStart = 0;
    for (let i = 0; i < chunk.length; i++) {
      const code = chunk[i]!;
      if (code === 10) {
        this.line++;
        lineStart = i + 1;
        this.parts = [];
        this.size = 0;
        this.skipping = false;
        continue;
      }
      if (isSpace(code)) continue;
      this.mode = code === 91 ? 'array' : 'jsonl';
      this.out.push({ kind: 'format', format: this.mode });
      if (this.mode === 'array') {
        this.parts = [];
        this.size = 0;
        this.skipping = false;
        return i;
      }
      return lineStart;
    }
    // All white space: what there is of the current line is kept, up to the limit (past it, the line
    // is over the limit if anything but white space follows on it, as in JSON Lines).
    if (!this.skipping) {
      this.size += chunk.length - lineStart;
      if (this.size > this.limit) {
        this.parts = [];
        this.skipping = true;
        this.blank = true;
      } else if (lineStart < chunk.length) this.parts.push(chunk.subarray(lineStart));
    }
    return chunk.length;
  }

  private jsonLines(chunk: Buffer, from: number): void {
    let start = from;
    for (let newline = chunk.indexOf(10, start); newline !== -1; newline = chunk.indexOf(10, start)) {
      this.endLine(chunk, start, newline);
      start = newline + 1;
    }
    if (start >= chunk.length) return;
    if (this.skipping) {
      if (this.blank) this.blank = allSpace(chunk, start);
      return;
    }
    this.size += chunk.length - start;
    if (this.size <= this.limit) this.parts.push(chunk.subarray(start));
    else this.overLimit(chunk, start, chunk.length);
  }

  /** The line so far is over the limit: it is let go, and only whether it is blank is kept. */
  private overLimit(chunk: Buffer, start: number, end: number): void {
    this.blank = this.parts.every((part) => allSpace(part)) && allSpace(chunk, start, end);
    this.parts = [];
    this.skipping = true;
  }

  /** The line that ends at `end` (a newline, or the end of the input). */
  private endLine(chunk: Buffer, start: number, end: number): void {
    const line = this.line++;
    if (!this.skipping && this.size + end - start > this.limit) this.overLimit(chunk, start, end);
    if (this.skipping) {
      if (this.blank && !allSpace(chunk, start, end)) this.blank = false;
      if (!this.blank) this.out.push({ kind: 'tooLarge', line, index: this.index++ });
    } else {
      let text: string;
      if (this.parts.length === 0) {
        if (end > start && chunk[end - 1] === 13) end--;
        text = chunk.toString('utf8', start, end);
      } else {
        const bytes = Buffer.concat([...this.parts, chunk.subarray(start, end)]);
        text = bytes.toString('utf8', 0, bytes.at(-1) === 13 ? bytes.length - 1 : bytes.length);
      }
      const first = text.charCodeAt(0);
      if (first === 123 || first === 91 || text.trim() !== '')
        this.out.push({ kind: 'document', text, line, index: this.index++ });
    }
    this.parts = [];
    this.size = 0;
    this.skipping = false;
    this.blank = true;
  }

  /**
   * The elements of one top-level JSON array, found by tracking strings and nesting depth. An
   * element's text is handed on as is; a malformed element is JSON.parse's to report.
   */
  private array(chunk: Buffer, from: number): void {
    let start = this.inElement ? from : -1;
    for (let i = from; i < chunk.length; i++) {
      const code = chunk[i]!;
      if (code === 10) this.line++;
      else if (!isSpace(code)) this.lastContentLine = this.line;
      if (this.inString) {
        if (this.escaped) this.escaped = false;
        else if (code === 92) this.escaped = true;
        else if (code === 34) this.inString = false;
        continue;
      }
      if (this.closed) {
        if (!isSpace(code) && !this.trailingReported) {
          this.trailingReported = true;
          this.out.push({
            kind: 'problem',
            problem: 'unexpected text after the end of the JSON array',
            line: this.line,
          });
        }
        continue;
      }
      if (this.depth === 0) {
        if (code === 91) this.depth = 1; // the opening '[' (leading spaces were skipped already)
        continue;
      }
      if (this.depth === 1 && !this.inElement) {
        if (isSpace(code)) continue;
        if (code === 44) {
          // ',' only ever follows an element, and ends it (below): here there is no value before it.
          this.out.push({
            kind: 'problem',
            problem: "unexpected ',': a value is missing before it",
            line: this.line,
          });
          continue;
        }
        if (code === 93) {
          if (this.afterComma)
            this.out.push({
              kind: 'problem',
              problem: "a trailing ',' before the closing ']'",
              line: this.commaLine,
            });
          this.closed = true;
          this.depth = 0;
          continue;
        }
        this.inElement = true;
        this.afterComma = false;
        this.elementLine = this.line;
        start = i;
      }
      if (code === 34) this.inString = true;
      else if (code === 91 || code === 123) this.depth++;
      else if (code === 93 && this.depth === 1) {
        // The array's own ']' ends the last element.
        this.endElement(chunk, start, i);
        this.closed = true;
        this.depth = 0;
      } else if ((code === 93 || code === 125) && this.depth > 1) {
        this.depth--;
      } else if (code === 44 && this.depth === 1) {
        this.endElement(chunk, start, i);
        this.afterComma = true;
        this.commaLine = this.line;
      }
    }
    if (this.inElement && start >= 0 && !this.skipping) {
      this.size += chunk.length - start;
      if (this.size <= this.limit) this.parts.push(chunk.subarray(start));
      else {
        this.parts = [];
        this.skipping = true;
      }
    }
  }

  private endElement(chunk: Buffer, start: number, end: number): void {
    if (!this.skipping && this.size + end - start > this.limit) this.skipping = true;
    if (this.skipping) this.out.push({ kind: 'tooLarge', line: this.elementLine, index: this.index++ });
    else {
      const text =
        this.parts.length === 0
          ? chunk.toString('utf8', start, end)
          : Buffer.concat([...this.parts, chunk.subarray(start, end)]).toString('utf8');
      this.out.push({ kind: 'document', text, line: this.elementLine, index: this.index++ });
    }
    this.parts = [];
    this.size = 0;
    this.skipping = false;
    this.inElement = false;
  }

  private endArray(): void {
    if (this.inElement) this.endElement(Buffer.alloc(0), 0, 0);
    if (!this.closed) {
      this.out.push({
        kind: 'problem',
        problem: 'the JSON array is not closed: the file ends before its "]"',
        line: this.lastContentLine,
      });
    }
  }
}

/** The documents of a stream, after a first event that says which format it is in. */
export async function* readDocuments(
  source: AsyncIterable<Buffer | string>,
  options: ReadOptions = {},
): AsyncGenerator<DocumentEvent> {
  const splitter = new DocumentSplitter(options.maxLineBytes ?? DEFAULT_LINE_BYTES);
  // Text chunks (a stream with an encoding set) are encoded again; a surrogate pair cut in two waits
  // for its second half.
  let surrogate = '';
  for await (const chunk of source) {
    if (typeof chunk !== 'string') {
      yield* splitter.push(chunk);
      continue;
    }
    let text = surrogate + chunk;
    const last = text.charCodeAt(text.length - 1);
    surrogate = last >= 0xd800 && last <= 0xdbff ? text.slice(-1) : '';
    if (surrogate) text = text.slice(0, -1);
    yield* splitter.push(Buffer.from(text, 'utf8'));
  }
  if (surrogate) yield* splitter.push(Buffer.from(surrogate, 'utf8'));
  yield* splitter.end();
}
