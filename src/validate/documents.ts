// Splits a stream of JSON into its documents without holding the whole file: JSON Lines (one document
// per line; blank lines skipped) or one JSON array (each element a document), told apart by the first
// character. Each document comes with the line it starts on, so that problems can be reported as
// file:line. A byte-order mark and CRLF line ends are accepted.

import { StringDecoder } from 'node:string_decoder';

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
  | ({ kind: 'problem' } & FramingProblem);

const isSpace = (code: number) => code === 32 || code === 9 || code === 10 || code === 13;

/** Yields the documents of a JSON Lines stream. */
async function* jsonLines(chunks: AsyncIterable<string>): AsyncGenerator<DocumentEvent> {
  let pending = '';
  let line = 0;
  let index = 0;
  const emit = (raw: string): DocumentEvent | undefined => {
    line++;
    const text = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (text.trim() === '') return undefined;
    return { kind: 'document', text, line, index: index++ };
  };
  for await (const chunk of chunks) {
    pending += chunk;
    let newline = pending.indexOf('\n');
    let start = 0;
    while (newline !== -1) {
      const event = emit(pending.slice(start, newline));
      if (event) yield event;
      start = newline + 1;
      newline = pending.indexOf('\n', start);
    }
    pending = pending.slice(start);
  }
  if (pending !== '') {
    const event = emit(pending);
    if (event) yield event;
  }
}

/**
 * Yields the elements of one top-level JSON array, found by tracking strings and nesting depth. An
 * element's text is handed on as is; a malformed element is JSON.parse's to report.
 */
async function* arrayElements(chunks: AsyncIterable<string>): AsyncGenerator<DocumentEvent> {
  let depth = 0; // 0: before/after the array, 1: inside it, >1: inside an element
  let inString = false;
  let escaped = false;
  let line = 1;
  let index = 0;
  let parts: string[] = [];
  let elementLine = 0;
  let inElement = false;
  let closed = false;
  let trailingReported = false;
  /** Just after '[' or ',': a value must come next (after ',' a ']' is a trailing comma). */
  let afterComma = false;
  let commaLine = 0;
  /** The last line with anything on it, where an unclosed array is reported. */
  let lastContentLine = 1;

  for await (const chunk of chunks) {
    let start = inElement ? 0 : -1;
    for (let i = 0; i < chunk.length; i++) {
      const code = chunk.charCodeAt(i);
      if (code === 10) line++;
      else if (!isSpace(code)) lastContentLine = line;
      if (inString) {
        if (escaped) escaped = false;
        else if (code === 92) escaped = true;
        else if (code === 34) inString = false;
        continue;
      }
      if (closed) {
        if (!isSpace(code) && !trailingReported) {
          trailingReported = true;
          yield { kind: 'problem', problem: 'unexpected text after the end of the JSON array', line };
        }
        continue;
      }
      if (depth === 0) {
        if (code === 91) depth = 1; // the opening '[' (leading spaces were skipped by the caller)
        continue;
      }
      if (depth === 1 && !inElement) {
        if (isSpace(code)) continue;
        if (code === 44) {
          // ',' only ever follows an element, and ends it (below): here there is no value before it.
          yield { kind: 'problem', problem: "unexpected ',': a value is missing before it", line };
          continue;
        }
        if (code === 93) {
          if (afterComma)
            yield { kind: 'problem', problem: "a trailing ',' before the closing ']'", line: commaLine };
          closed = true;
          depth = 0;
          continue;
        }
        inElement = true;
        afterComma = false;
        elementLine = line;
        start = i;
      }
      if (code === 34) inString = true;
      else if (code === 91 || code === 123) depth++;
      else if (code === 93 && depth === 1) {
        // The array's own ']' ends the last element.
        parts.push(chunk.slice(start, i));
        yield { kind: 'document', text: parts.join(''), line: elementLine, index: index++ };
        parts = [];
        inElement = false;
        closed = true;
        depth = 0;
      } else if ((code === 93 || code === 125) && depth > 1) {
        depth--;
      } else if (code === 44 && depth === 1) {
        parts.push(chunk.slice(start, i));
        yield { kind: 'document', text: parts.join(''), line: elementLine, index: index++ };
        parts = [];
        inElement = false;
        afterComma = true;
        commaLine = line;
      }
    }
    if (inElement && start >= 0) parts.push(chunk.slice(start));
  }
  if (inElement) {
    yield { kind: 'document', text: parts.join(''), line: elementLine, index: index++ };
  }
  if (!closed) {
    yield {
      kind: 'problem',
      problem: 'the JSON array is not closed: the file ends before its "]"',
      line: lastContentLine,
    };
  }
}

async function* decode(source: AsyncIterable<Buffer | string>): AsyncGenerator<string> {
  const decoder = new StringDecoder('utf8');
  let first = true;
  for await (const chunk of source) {
    let text = typeof chunk === 'string' ? chunk : decoder.write(chunk);
    if (first && text.length > 0) {
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
      first = false;
    }
    if (text) yield text;
  }
  const rest = decoder.end();
  if (rest) yield rest;
}

/** The documents of a stream, after a first event that says which format it is in. */
export async function* readDocuments(source: AsyncIterable<Buffer | string>): AsyncGenerator<DocumentEvent> {
  const chunks = decode(source);
  // Read up to the first non-blank character to tell the format, then replay what was read. (The
  // iterator is driven by hand: breaking out of a for-await would close it.)
  const buffered: string[] = [];
  let format: DocumentFormat = 'jsonl';
  for (let next = await chunks.next(); !next.done; next = await chunks.next()) {
    buffered.push(next.value);
    const first = next.value.search(/\S/);
    if (first !== -1) {
      format = next.value[first] === '[' ? 'array' : 'jsonl';
      break;
    }
  }
  yield { kind: 'format', format };
  async function* replay(): AsyncGenerator<string> {
    yield* buffered;
    for (let next = await chunks.next(); !next.done; next = await chunks.next()) yield next.value;
  }
  yield* format === 'array' ? arrayElements(replay()) : jsonLines(replay());
}
