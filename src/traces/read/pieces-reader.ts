// What reads the pieces of a JSON Lines input (whole lines, cut by parallel.ts) into gzipped batches:
// in a worker thread (worker.ts), or on the main thread when there is no worker to give them to.

import { gzipSync } from 'node:zlib';
import { type Project, withRouting } from '../otlp/routing.js';
import { GZIP } from '../send/gzip-options.js';
import { BatchBuilder, type BatchLimits } from './batches.js';
import { readJsonLinesPiece } from './json-lines.js';
import { JsonSpanReader } from './json-reader.js';
import { LineTranscoder } from './line-transcoder.js';
import { Problems } from './problems.js';

export interface PiecesBatch {
  /** gzipped protobuf */
  bytes: Uint8Array;
  spans: number;
}

export interface PiecesSettings {
  limits: BatchLimits;
  project: Project | undefined;
  maxLineBytes: number;
}

export class PiecesReader {
  readonly problems = new Problems();
  private out: PiecesBatch[] = [];
  private readonly builder: BatchBuilder;
  private readonly reader: JsonSpanReader;
  private readonly transcoder = new LineTranscoder();
  private reported = { spans: 0, documents: 0 };

  constructor(private readonly settings: PiecesSettings) {
    const { project } = settings;
    this.builder = new BatchBuilder(
      settings.limits,
      (context) => withRouting(context.resource, project),
      (batch) => this.out.push({ bytes: gzipSync(batch.bytes, GZIP), spans: batch.spans }),
    );
    this.reader = new JsonSpanReader(this.builder, this.problems, project);
  }

  piece(bytes: Buffer, firstLine: number): void {
    readJsonLinesPiece(bytes, this.reader, this.transcoder, {
      firstLine,
      maxLineBytes: this.settings.maxLineBytes,
    });
  }

  /** The batches made since the last call, and the spans and documents read since. */
  take(): { batches: PiecesBatch[]; spans: number; documents: number } {
    const batches = this.out;
    this.out = [];
    const { spans, documents } = this.reader;
    const counts = { spans: spans - this.reported.spans, documents: documents - this.reported.documents };
    this.reported = { spans, documents };
    return { batches, ...counts };
  }

  /** The last batch, after the last piece. */
  finish(): void {
    this.builder.flush();
  }
}
