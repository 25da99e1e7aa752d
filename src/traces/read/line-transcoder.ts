// One line of a JSON Lines input, its spans transcoded from bytes to protobuf (../otlp/span-transcoder.ts)
// without JSON.parse: the same events as the ordinary reader (json-stream.ts) gives for that line,
// with the spans already encoded. Resources and scopes, a few per line, are parsed as usual, so that
// routing and their checks stay where they are. A line with anything the transcoder does not take
// (json-cursor.ts says what) gives `undefined`, and the caller reads it the ordinary way: nothing of
// it has reached a batch by then.
//
// Why: JSON.parse makes an object of every attribute of every span, and a worker's small heap spent a
// fifth of its time collecting them; the transcoder reads each byte once and makes almost nothing.

import {
  CLOSE_ARRAY,
  CLOSE_OBJECT,
  GIVE_UP,
  JsonCursor,
  keyTable,
  OPEN_ARRAY,
  OPEN_OBJECT,
} from '../otlp/json-cursor.js';
import type { JsonPath } from '../otlp/otlp-json.js';
import { ProtoWriter } from '../otlp/proto-writer.js';
import { transcodeSpan } from '../otlp/span-transcoder.js';
import type { OtlpJsonEvent } from './json-stream.js';

const DOCUMENT_KEYS = keyTable(['resourceSpans']);
const RESOURCE_SPANS_KEYS = keyTable(['resource', 'scopeSpans', 'schemaUrl']);
const SCOPE_SPANS_KEYS = keyTable(['scope', 'spans', 'schemaUrl']);

/** Where a value is in the line: start and end offsets. */
type Range = [number, number];

interface ScopeSpansRead {
  scope?: Range;
  schemaUrl?: Range;
  /** Index of its first span in `offsets`, and how many. */
  first: number;
  count: number;
}

interface ResourceSpansRead {
  resource?: Range;
  schemaUrl?: Range;
  scopes: ScopeSpansRead[];
}

export class LineTranscoder {
  /** The line's spans, each a `spans` field of ScopeSpans, one after the other. */
  private readonly spans = new ProtoWriter(256 * 1024);
  /** Where each span starts in `spans`, and (last) where the last one ends. */
  private readonly offsets: number[] = [];

  /** The events of the line from `start` to `end` (its newline excluded), or undefined. */
  events(src: Buffer, start: number, end: number, line: number): OtlpJsonEvent[] | undefined {
    this.spans.pos = 0;
    this.offsets.length = 0;
    const c = new JsonCursor(src, start, end);
    try {
      const read = this.document(c);
      this.offsets.push(this.spans.pos);
      return this.toEvents(src, read, line);
    } catch (error) {
      if (error === GIVE_UP || error instanceof SyntaxError) return undefined;
      throw error;
    }
  }

  /** `{"resourceSpans": [...]}` and nothing else; an empty document is left to the ordinary reader. */
  private document(c: JsonCursor): ResourceSpansRead[] {
    const list: ResourceSpansRead[] = [];
    c.expect(OPEN_OBJECT);
    c.key(DOCUMENT_KEYS);
    if (c.open(OPEN_ARRAY, CLOSE_ARRAY))
      do list.push(this.resourceSpans(c));
      while (c.more(CLOSE_ARRAY));
    c.expect(CLOSE_OBJECT);
    if (c.peek() !== -1) throw GIVE_UP;
    return list;
  }

  private resourceSpans(c: JsonCursor): ResourceSpansRead {
    const read: ResourceSpansRead = { scopes: [] };
    let seen = 0;
    if (c.open(OPEN_OBJECT, CLOSE_OBJECT))
      do {
        const k = c.key(RESOURCE_SPANS_KEYS);
        if (seen & (1 << k) || c.isNull()) throw GIVE_UP;
        seen |= 1 << k;
        if (k === 0) read.resource = range(c, () => c.skipValue());
        else if (k === 2) read.schemaUrl = range(c, () => c.string());
        else if (c.open(OPEN_ARRAY, CLOSE_ARRAY))
          do read.scopes.push(this.scopeSpans(c));
          while (c.more(CLOSE_ARRAY));
      } while (c.more(CLOSE_OBJECT));
    return read;
  }

  private scopeSpans(c: JsonCursor): ScopeSpansRead {
    const read: ScopeSpansRead = { first: this.offsets.length, count: 0 };
    let seen = 0;
    if (c.open(OPEN_OBJECT, CLOSE_OBJECT))
      do {
        const k = c.key(SCOPE_SPANS_KEYS);
        if (seen & (1 << k) || c.isNull()) throw GIVE_UP;
        seen |= 1 << k;
        if (k === 0) read.scope = range(c, () => c.skipValue());
        else if (k === 2) read.schemaUrl = range(c, () => c.string());
        else if (c.open(OPEN_ARRAY, CLOSE_ARRAY))
          do {
            this.offsets.push(this.spans.pos);
            transcodeSpan(c, this.spans);
            read.count++;
          } while (c.more(CLOSE_ARRAY));
      } while (c.more(CLOSE_OBJECT));
    return read;
  }

  /** The events json-stream.ts gives for a document parsed whole (its walkDocument), in its order. */
  private toEvents(src: Buffer, read: ResourceSpansRead[], line: number): OtlpJsonEvent[] {
    const lineOf = () => line;
    const events: OtlpJsonEvent[] = [{ kind: 'document', line }];
    const parse = (at: Range) => JSON.parse(src.toString('utf8', at[0], at[1])) as unknown;
    read.forEach((rs, i) => {
      const rsPath: JsonPath = ['resourceSpans', i];
      events.push({ kind: 'resourceSpans', path: rsPath, line });
      if (rs.resource)
        events.push({
          kind: 'resource',
          value: parse(rs.resource),
          path: [...rsPath, 'resource'],
          line,
          lineOf,
        });
      if (rs.schemaUrl)
        events.push({
          kind: 'resourceSchemaUrl',
          value: parse(rs.schemaUrl),
          path: [...rsPath, 'schemaUrl'],
          line,
          lineOf,
        });
      rs.scopes.forEach((ss, j) => {
        const ssPath: JsonPath = [...rsPath, 'scopeSpans', j];
        events.push({ kind: 'scopeSpans', path: ssPath, line });
        if (ss.scope)
          events.push({ kind: 'scope', value: parse(ss.scope), path: [...ssPath, 'scope'], line, lineOf });
        if (ss.schemaUrl)
          events.push({
            kind: 'scopeSchemaUrl',
            value: parse(ss.schemaUrl),
            path: [...ssPath, 'schemaUrl'],
            line,
            lineOf,
          });
        if (ss.count > 0)
          events.push({
            kind: 'encodedSpans',
            bytes: this.spans.buf,
            offsets: this.offsets,
            first: ss.first,
            count: ss.count,
          });
        events.push({ kind: 'end', of: 'scopeSpans' });
      });
      events.push({ kind: 'end', of: 'resourceSpans' });
    });
    return events;
  }
}

/** The range of what `read` reads (white space before it left out). */
function range(c: JsonCursor, read: () => void): Range {
  c.peek();
  const start = c.pos;
  read();
  return [start, c.pos];
}
