// A piece of a JSON Lines input (whole lines) into the span reader: each line transcoded straight to
// protobuf where it can be (line-transcoder.ts), the others read the ordinary way (json-stream.ts),
// which finds and says what is wrong with them. The events, and so the batches, counts and problems,
// are the same either way; only the work differs.

import { DEFAULT_LINE_BYTES } from '../../api/limits.js';
import type { JsonSpanReader } from './json-reader.js';
import { OtlpJsonSplitter, wholeLineBytes } from './json-stream.js';
import type { LineTranscoder } from './line-transcoder.js';

export interface PieceOptions {
  /** The number of the piece's first line in the whole input. */
  firstLine: number;
  maxLineBytes?: number;
}

/** How many lines of a piece went each way (for tests and profiles). */
export interface PieceCounts {
  transcoded: number;
  ordinary: number;
}

export function readJsonLinesPiece(
  bytes: Buffer,
  reader: JsonSpanReader,
  transcoder: LineTranscoder,
  options: PieceOptions,
): PieceCounts {
  const counts: PieceCounts = { transcoded: 0, ordinary: 0 };
  const splitter = new OtlpJsonSplitter({
    firstLine: options.firstLine,
    jsonLines: true,
    maxLineBytes: options.maxLineBytes,
  });
  // Only the lines the ordinary reader would parse whole: a longer one is scanned, value by value,
  // and a value over the line limit is a problem there.
  const whole = wholeLineBytes(options.maxLineBytes ?? DEFAULT_LINE_BYTES);
  let line = options.firstLine;
  for (let start = 0; start < bytes.length; line++) {
    const newline = bytes.indexOf(10, start);
    const end = newline === -1 ? bytes.length : newline;
    const next = newline === -1 ? bytes.length : newline + 1;
    const events =
      end - start <= whole && splitter.betweenDocuments
        ? transcoder.events(bytes, start, end, line)
        : undefined;
    if (events) {
      counts.transcoded++;
      splitter.passLine();
      for (const event of events) reader.handle(event);
    } else {
      counts.ordinary++;
      for (const event of splitter.push(bytes.toString('utf8', start, next))) reader.handle(event);
    }
    start = next;
  }
  for (const event of splitter.end()) reader.handle(event);
  return counts;
}
