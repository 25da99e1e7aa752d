// Reads a file of spans (OTLP/JSON, one document or JSON Lines, or OTLP protobuf; gzipped or not),
// checks all of it, and leaves it as encoded batches in a spool, ready to send. Nothing is sent from
// here: the caller sends only when there was no problem at all. Every format is read as a stream.
//
// A large JSON Lines input is read on several cores (parallel.ts); anything else on this thread.

import { once } from 'node:events';
import { StringDecoder } from 'node:string_decoder';
import { DEFAULT_LINE_BYTES, lineTooLarge } from '../../api/limits.js';
import { InterruptedError, UsageError } from '../../errors/errors.js';
import type { Source } from '../../fs/open-source.js';
import type { Problem } from '../../validate/check-file.js';
import type { PbSpan } from '../otlp/otlp.js';
import type { JsonPath } from '../otlp/otlp-json.js';
import { type Project, resourceProject, withRouting } from '../otlp/routing.js';
import { Spool } from '../send/spool.js';
import {
  BatchBuilder,
  type BatchLimits,
  type EncodedBatch,
  ResourceContext,
  type Router,
  ScopeContext,
} from './batches.js';
import { JsonSpanReader, NO_PROJECT } from './json-reader.js';
import { OtlpJsonSplitter, type SplitterOptions } from './json-stream.js';
import { readJsonLinesParallel, workerCount, workerScript } from './parallel.js';
import { type ByteSource, fileBytes, streamBytes } from './piece-bytes.js';
import { Problems } from './problems.js';
import { ProtobufFramingError, protobufEvents } from './protobuf-stream.js';

type InputFormat = 'json' | 'protobuf';

export interface ReadOptions {
  limits: BatchLimits;
  /** The configured team/project, for resources that carry no routing of their own. */
  project: Project | undefined;
  /** Told the format is this instead of looking at the first bytes. */
  format?: InputFormat;
  /** Worker threads for a large JSON Lines input (default: one per core; 0 keeps it on this thread). */
  workers?: number;
  /** Told about progress now and then (spans read so far). */
  onProgress?: (spans: number) => void;
  /** Ctrl-C: reading stops, the spool goes, InterruptedError. */
  signal?: AbortSignal;
  /** The line limit (AIP_MAX_LINE_BYTES): the most of one line, or one value, held at a time. */
  maxLineBytes?: number;
  /** Where batches wait (the caller's, so that it can send them as they come); a new one if not given. */
  spool?: Spool;
  /**
   * Told of each batch that is final as soon as it is spooled, while no problem has been found (--stream
   * sends them then): the workers' batches, made of whole lines. The others are final only at the end.
   */
  onFinalBatch?: (batch: SpooledBatch) => void;
}

/** A batch ready to send: where it waits in the spool, and whether it is gzipped already. */
export interface SpooledBatch {
  slot: number;
  spans: number;
  gzipped: boolean;
  /** For batches encoded on this thread, the contexts they were encoded with (see batches.ts). */
  encoded?: EncodedBatch;
  /** Final as soon as it was made (given to onFinalBatch then). */
  final?: boolean;
}

export interface ReadResult {
  name: string;
  format: InputFormat;
  gzipped: boolean;
  /** Read on this many worker threads (0: on the main thread). */
  workers: number;
  documents: number;
  spans: number;
  batches: SpooledBatch[];
  spool: Spool;
  problems: Problem[];
  problemCount: number;
  route: Router;
}

/** Inputs smaller than this are read on the main thread: starting workers would cost more. */
const PARALLEL_FROM_BYTES = 4 * 1024 * 1024;

interface Peeked {
  head: Buffer;
  /** The whole stream again, the peeked bytes first. */
  rest: AsyncIterable<Buffer>;
  /** The stream ended within the peeked bytes. */
  ended: boolean;
}

/** The first `bytes` of a stream (or all of it, if shorter). */
async function peek(stream: AsyncIterable<Buffer | string>, bytes: number): Promise<Peeked> {
  const iterator = stream[Symbol.asyncIterator]();
  const chunks: Buffer[] = [];
  let size = 0;
  let ended = false;
  while (size < bytes) {
    const next = await iterator.next();
    if (next.done) {
      ended = true;
      break;
    }
    const chunk = typeof next.value === 'string' ? Buffer.from(next.value) : next.value;
    chunks.push(chunk);
    size += chunk.length;
  }
  const head = Buffer.concat(chunks);
  async function* rest(): AsyncGenerator<Buffer> {
    if (head.length) yield head;
    if (ended) return;
    for (;;) {
      const next = await iterator.next();
      if (next.done) return;
      yield typeof next.value === 'string' ? Buffer.from(next.value) : next.value;
    }
  }
  return { head, rest: rest(), ended };
}

/** A broken gzip stream is bad input (exit 2), said in one line. */
async function* gunzip(name: string, input: AsyncIterable<Buffer>): AsyncGenerator<Buffer> {
  const { createGunzip } = await import('node:zlib');
  const z = createGunzip();
  const pump = (async () => {
    try {
      for await (const chunk of input) if (!z.write(chunk)) await once(z, 'drain');
      z.end();
    } catch (error) {
      z.destroy(error as Error);
    }
  })();
  try {
    for await (const chunk of z) yield chunk as Buffer;
  } catch (error) {
    throw new UsageError(
      `${name}: not a complete gzip stream (${(error as Error).message}); nothing was sent`,
    );
  }
  await pump;
}

/**
 * JSON or protobuf? A protobuf request starts with 0x0a (field 1 of ExportTraceServiceRequest), never
 * with `{`: a file whose first byte (after a byte-order mark) is `{` is JSON, however broken, and is
 * read as JSON, which says where it breaks. 0x0a is a newline to a JSON reader, and the length byte
 * after it can be `{`: after white space, the key after the `{` is what tells them apart.
 */
export function looksLikeJson(head: Buffer): boolean {
  const text = head.subarray(0, 256).toString('latin1');
  if (/^(\u00ef\u00bb\u00bf)?\{/.test(text)) return true;
  return /^(\u00ef\u00bb\u00bf)?\s*(\{\s*(\}|"[^"\\\u0000-\u001f]{0,100}"\s*:)|$)/.test(text);
}

export async function readSpans(source: Source, options: ReadOptions): Promise<ReadResult> {
  let peeked = await peek(source.stream, 2);
  const gzipped = peeked.head[0] === 0x1f && peeked.head[1] === 0x8b;
  peeked = await peek(gzipped ? gunzip(source.name, peeked.rest) : peeked.rest, PARALLEL_FROM_BYTES);
  const format = options.format ?? (looksLikeJson(peeked.head) ? 'json' : 'protobuf');

  const route: Router = (context) => withRouting(context.resource, options.project);
  const spool = options.spool ?? new Spool();
  // A spool the caller gave is the caller's to close: it may be sending from it still (--stream).
  const closeOwn = () => {
    if (!options.spool) spool.close();
  };
  const batches: SpooledBatch[] = [];
  let problems = new Problems();
  const builder = new BatchBuilder(options.limits, route, (batch) => {
    // Once there is a problem nothing will be sent: checking goes on, storing stops.
    if (problems.count === 0)
      batches.push({
        slot: spool.put(batch.bytes),
        spans: batch.spans,
        gzipped: false,
        encoded: { ...batch, bytes: new Uint8Array() },
      });
  });
  const counts = { spans: 0, documents: 0, workers: 0 };
  const script = workerScript();
  const workers = Math.max(0, options.workers ?? workerCount());
  const input = interruptible(peeked.rest, options.signal);
  let bytes: ByteSource | undefined;

  try {
    if (format === 'json' && startsWithWholeLine(peeked.head)) {
      // JSON Lines: on worker threads if it is large enough to pay for starting them.
      const parallel = !peeked.ended && script !== undefined && workers > 1;
      counts.workers = parallel ? workers : 0;
      // A file is read straight into the pieces' buffers; anything else is copied into them.
      const file = gzipped ? undefined : source.file;
      bytes = (file && fileBytes(file.path, file.stat, peeked.head, options.signal)) || streamBytes(input);
      const read = await readJsonLinesParallel(bytes, {
        script: parallel ? script : undefined,
        workers: parallel ? workers : 0,
        limits: options.limits,
        project: options.project,
        maxLineBytes: options.maxLineBytes,
        onBatch: (batch, problemFound) => {
          if (problems.count > 0 || problemFound) return;
          const spooled = { slot: spool.put(batch.bytes), spans: batch.spans, gzipped: true, final: true };
          batches.push(spooled);
          options.onFinalBatch?.(spooled);
        },
        onProgress: options.onProgress,
      });
      problems = read.problems;
      counts.spans = read.spans;
      counts.documents = read.documents;
      if (read.rest) {
        // A line too long for the workers: from there on, this thread reads (and scans long lines).
        const more = await readJsonHere(read.rest.input, builder, problems, options, {
          firstLine: read.rest.line,
          jsonLines: true,
          maxLineBytes: options.maxLineBytes,
        });
        counts.spans += more.spans;
        counts.documents += more.documents;
      }
    } else if (format === 'json') {
      const read = await readJsonHere(input, builder, problems, options, {
        maxLineBytes: options.maxLineBytes,
      });
      counts.spans = read.spans;
      counts.documents = read.documents;
    } else {
      await readProtobuf(input, builder, problems, counts, options);
    }
    builder.flush();
    if (problems.count > 0) {
      closeOwn();
      batches.length = 0;
    } else if (counts.spans === 0) problems.add(0, undefined, 'no spans in the input');
  } catch (error) {
    closeOwn();
    throw error;
  } finally {
    bytes?.close();
    // A file's stream was read only as far as the peek, if the file was read at positions after it.
    if (source.file) (source.stream as { destroy?: () => void }).destroy?.();
  }
  return {
    name: source.name,
    format,
    gzipped,
    workers: counts.workers,
    documents: counts.documents,
    spans: counts.spans,
    batches,
    spool,
    problems: problems.list,
    problemCount: problems.count,
    route,
  };
}

/** The stream, ending in InterruptedError once the signal fires. */
async function* interruptible(
  input: AsyncIterable<Buffer>,
  signal: AbortSignal | undefined,
): AsyncGenerator<Buffer> {
  for await (const chunk of input) {
    if (signal?.aborted) throw new InterruptedError();
    yield chunk;
  }
}

/** Is the input's first line a whole document (JSON Lines, which can be cut at any newline)? */
function startsWithWholeLine(head: Buffer): boolean {
  const newline = head.indexOf(10);
  if (newline === -1) return false;
  try {
    const first = JSON.parse(head.subarray(0, newline).toString('utf8'));
    return typeof first === 'object' && first !== null && !Array.isArray(first);
  } catch {
    return false;
  }
}

/** OTLP/JSON read on this thread. */
async function readJsonHere(
  input: AsyncIterable<Buffer>,
  builder: BatchBuilder,
  problems: Problems,
  options: ReadOptions,
  splitting: SplitterOptions,
): Promise<{ spans: number; documents: number }> {
  const reader = new JsonSpanReader(builder, problems, options.project, (spans) => {
    if (spans % 50_000 === 0) options.onProgress?.(spans);
  });
  const decoder = new StringDecoder('utf8');
  const splitter = new OtlpJsonSplitter(splitting);
  for await (const chunk of input)
    for (const event of splitter.push(decoder.write(chunk))) reader.handle(event);
  for (const event of splitter.push(decoder.end())) reader.handle(event);
  for (const event of splitter.end()) reader.handle(event);
  return { spans: reader.spans, documents: reader.documents };
}

function checkIds(span: PbSpan, path: JsonPath, problems: Problems): boolean {
  const before = problems.count;
  const check = (name: 'traceId' | 'spanId' | 'parentSpanId', size: number, optional: boolean) => {
    const id = span[name];
    const length = id?.length ?? 0;
    if (optional && length === 0) return;
    if (length !== size) problems.add(0, [...path, name], `expected ${size} bytes, not ${length}`);
    else if (id!.every((b) => b === 0)) problems.add(0, [...path, name], 'an id of all zeros is not valid');
  };
  check('traceId', 16, false);
  check('spanId', 8, false);
  check('parentSpanId', 8, true);
  if (!span.name) problems.add(0, [...path, 'name'], 'required: a span needs a name');
  return problems.count === before;
}

/** OTLP protobuf, one span at a time (protobuf-stream.ts). */
async function readProtobuf(
  input: AsyncIterable<Buffer>,
  builder: BatchBuilder,
  problems: Problems,
  counts: { spans: number; documents: number },
  options: ReadOptions,
): Promise<void> {
  let resource = new ResourceContext(0);
  let scope = new ScopeContext(resource);
  let resourceIndex = 0;
  let scopeIndex = 0;
  let spans = 0;
  counts.documents = 1;
  try {
    for await (const event of protobufEvents(input, options.maxLineBytes)) {
      switch (event.kind) {
        case 'tooLarge': {
          // Passed over unread: a problem (nothing will be sent), and the reading goes on.
          const path: JsonPath = ['resourceSpans', resourceIndex];
          if (event.of === 'scopeSpans') path.push('scopeSpans', scopeIndex);
          path.push(event.what === 'span' ? 'spans' : event.what);
          if (event.what === 'span') path.push(event.index);
          if (event.what === 'span') counts.spans++;
          problems.add(
            0,
            path,
            `${lineTooLarge(options.maxLineBytes ?? DEFAULT_LINE_BYTES, `the ${event.what}`)} (byte ${event.offset})`,
          );
          break;
        }
        case 'resourceSpans':
          resource = new ResourceContext(0);
          resourceIndex = event.index;
          spans = 0;
          break;
        case 'resource':
          resource.resource = event.resource;
          resource.version++;
          break;
        case 'resourceSchemaUrl':
          resource.schemaUrl = event.schemaUrl;
          resource.version++;
          break;
        case 'scopeSpans':
          scope = new ScopeContext(resource);
          scopeIndex = event.index;
          break;
        case 'scope':
          scope.scope = event.scope;
          scope.version++;
          break;
        case 'scopeSchemaUrl':
          scope.schemaUrl = event.schemaUrl;
          scope.version++;
          break;
        case 'span': {
          counts.spans++;
          spans++;
          if (counts.spans % 50_000 === 0) options.onProgress?.(counts.spans);
          const path = ['resourceSpans', resourceIndex, 'scopeSpans', scopeIndex, 'spans', event.index];
          if (checkIds(event.span, path, problems) && problems.count === 0) builder.add(event.span, scope);
          break;
        }
        case 'end':
          if (
            event.of === 'resourceSpans' &&
            spans > 0 &&
            !options.project &&
            !resourceProject(resource.resource)
          ) {
            problems.add(
              0,
              ['resourceSpans', resourceIndex],
              `${spans} span${spans === 1 ? '' : 's'}: ${NO_PROJECT}`,
            );
          }
          break;
      }
    }
  } catch (error) {
    if (!(error instanceof ProtobufFramingError)) throw error;
    problems.add(
      0,
      undefined,
      `not an OTLP ExportTraceServiceRequest in protobuf: ${error.message} (byte ${error.offset})`,
    );
  }
}
