// A worker thread of `aip traces send` (parallel.ts): takes pieces of a JSON Lines input (whole
// lines, with the number of the first), checks their spans, encodes and gzips the batches, and
// hands them back. Parsing and encoding are most of the work of a send; spread over the cores, they
// keep up with the network.

import { parentPort } from 'node:worker_threads';
import { gzipSync } from 'node:zlib';
import { type Project, withRouting } from '../otlp/routing.js';
import { BatchBuilder, type BatchLimits } from './batches.js';
import { JsonSpanReader } from './json-reader.js';
import { OtlpJsonSplitter } from './json-stream.js';
import { Problems } from './problems.js';

export type ToWorker =
  | { type: 'start'; limits: BatchLimits; project: Project | undefined; maxLineBytes: number }
  | { type: 'piece'; bytes: Uint8Array; firstLine: number }
  | { type: 'finish' };

export interface WorkerBatch {
  /** gzipped protobuf */
  bytes: Uint8Array;
  spans: number;
}

export type FromWorker =
  | { type: 'progress'; batches: WorkerBatch[]; spans: number; documents: number }
  | {
      type: 'done';
      batches: WorkerBatch[];
      spans: number;
      documents: number;
      problems: Problems['list'];
      problemCount: number;
    };

const port = parentPort;
if (port) {
  let problems = new Problems();
  let out: WorkerBatch[] = [];
  let builder: BatchBuilder | undefined;
  let reader: JsonSpanReader | undefined;
  let reported = { spans: 0, documents: 0 };
  let maxLineBytes: number | undefined;
  const take = () => {
    const batches = out;
    out = [];
    const counts = {
      spans: reader!.spans - reported.spans,
      documents: reader!.documents - reported.documents,
    };
    reported = { spans: reader!.spans, documents: reader!.documents };
    return { batches, ...counts };
  };
  port.on('message', (message: ToWorker) => {
    if (message.type === 'start') {
      problems = new Problems();
      const { project } = message;
      builder = new BatchBuilder(
        message.limits,
        (context) => withRouting(context.resource, project),
        (batch) => out.push({ bytes: gzipSync(batch.bytes, { level: 1 }), spans: batch.spans }),
      );
      reader = new JsonSpanReader(builder, problems, project);
      maxLineBytes = message.maxLineBytes;
      reported = { spans: 0, documents: 0 };
      return;
    }
    if (message.type === 'piece') {
      const { bytes } = message;
      const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
      const splitter = new OtlpJsonSplitter({ firstLine: message.firstLine, jsonLines: true, maxLineBytes });
      for (const event of splitter.push(text)) reader!.handle(event);
      for (const event of splitter.end()) reader!.handle(event);
      port.postMessage({ type: 'progress', ...take() } satisfies FromWorker);
      return;
    }
    builder!.flush();
    port.postMessage({
      type: 'done',
      ...take(),
      problems: problems.list,
      problemCount: problems.count,
    } satisfies FromWorker);
  });
}
