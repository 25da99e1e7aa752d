// What reads the pieces of a JSON Lines input (whole lines, cut by parallel.ts) into gzipped batches:
// in a worker thread (worker.ts), or on the main thread when there is no worker to give them to.

import { gzipSync } from 'node:zlib';
import { type Project, withRouting } from '../otlp/routing.js';
import { GZIP } from '../send/gzip-options.js';
import {
  BatchBuilder,
  type BatchLimits,
  type EncodedBatch,
  isStale,
  type Router,
  reencode,
} from './batches.js';
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
  /** Batches made and not yet handed on: encoded, not gzipped, their contexts still to be checked. */
  private out: EncodedBatch[] = [];
  private readonly route: Router;
  private readonly builder: BatchBuilder;
  private readonly reader: JsonSpanReader;
  private readonly transcoder = new LineTranscoder();
  private reported = { spans: 0, documents: 0 };

  constructor(private readonly settings: PiecesSettings) {
    const { project } = settings;
    this.route = (context) => withRouting(context.resource, project);
    this.builder = new BatchBuilder(settings.limits, this.route, (batch) => this.out.push(batch));
    this.reader = new JsonSpanReader(this.builder, this.problems, project);
  }

  piece(bytes: Buffer, firstLine: number): void {
    readJsonLinesPiece(bytes, this.reader, this.transcoder, {
      firstLine,
      maxLineBytes: this.settings.maxLineBytes,
    });
  }

  /** The batches made since the last call, and the spans and documents read since. */
  take(): { batches: PiecesBatch[]; spans: number; documents: number; problemsSoFar: number } {
    // A piece holds whole lines, so its documents' resources and scopes are final by now: a batch
    // made before its resource came (a scanned line with the resource after the spans) is encoded
    // again with it, so that its spans go to the resource's project (see batches.ts).
    const batches = this.out.map((batch) => ({
      bytes: gzipSync(isStale(batch) ? reencode(batch, batch.bytes, this.route) : batch.bytes, GZIP),
      spans: batch.spans,
    }));
    this.out = [];
    const { spans, documents } = this.reader;
    const counts = { spans: spans - this.reported.spans, documents: documents - this.reported.documents };
    this.reported = { spans, documents };
    // So that a reader sending as it reads (--stream) holds back these batches once there is a problem.
    return { batches, ...counts, problemsSoFar: this.problems.count };
  }

  /** The last batch, after the last piece. */
  finish(): void {
    this.builder.flush();
  }
}
