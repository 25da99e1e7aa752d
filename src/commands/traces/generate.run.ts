// `aip traces generate`: synthetic spans (as telemetrygen makes them) in OTLP/JSON Lines, one
// document, or protobuf, for trying trace ingest out or loading it.

import { write as writeFd } from 'node:fs';
import { promisify } from 'node:util';
import type { Context } from '../../context.js';
import { InterruptedError, UsageError } from '../../errors/errors.js';
import { type AtomicFile, assertRewritable, openAtomic } from '../../fs/atomic-write.js';
import { writeError } from '../../fs/write-error.js';
import { thousands } from '../../output/plural.js';
import { generateDocuments } from '../../traces/make/generate.js';
import { generateAgentDocuments } from '../../traces/make/generate-agent.js';
import { nowNanos, parseTime } from '../../traces/make/span.js';
import { encodeRequest, type PbResourceSpans } from '../../traces/otlp/otlp.js';
import { resourceFromJson, scopeFromJson, spanFromJson } from '../../traces/otlp/otlp-json.js';
import { parseProject } from '../../traces/otlp/routing.js';
import type { GenerateOptions } from './generate.js';

const writeAsync = promisify(writeFd);

/** Protobuf from canonical JSON documents (the generator's own output is always valid). */
function toProtobuf(docs: Iterable<Record<string, unknown>>): Uint8Array {
  const resourceSpans: PbResourceSpans[] = [];
  const problems: never[] = [];
  for (const doc of docs) {
    for (const rs of doc.resourceSpans as Array<Record<string, unknown>>) {
      resourceSpans.push({
        resource: resourceFromJson(rs.resource, problems),
        ...(rs.schemaUrl ? { schemaUrl: rs.schemaUrl as string } : {}),
        scopeSpans: (rs.scopeSpans as Array<Record<string, unknown>>).map((ss) => ({
          scope: scopeFromJson(ss.scope, problems),
          ...(ss.schemaUrl ? { schemaUrl: ss.schemaUrl as string } : {}),
          spans: (ss.spans as unknown[]).map((span) => spanFromJson(span, problems)!),
        })),
      });
    }
  }
  return encodeRequest({ resourceSpans });
}

export async function runGenerate(ctx: Context, flags: GenerateOptions): Promise<void> {
  const { io } = ctx;
  const format = flags.format ?? 'jsonl';
  const project = flags.routing === undefined ? undefined : parseProject(flags.routing);
  if (flags.routing !== undefined && !project)
    throw new UsageError(`--routing ${flags.routing}: expected team/project`);
  if (format === 'protobuf' && !flags.output && io.isStdoutTTY)
    throw new UsageError('protobuf is binary: write it to a file (-o spans.pb) or a pipe');
  const generator = flags.shape === 'agent' ? generateAgentDocuments : generateDocuments;
  const docs = generator({
    spans: flags.spans,
    perDocument: flags.perDocument ?? 500,
    seed: flags.seed ?? 1,
    project,
    // An hour ago unless told: the same seed and --start give the same file, byte for byte.
    startNanos:
      flags.start === undefined ? nowNanos() - 3_600_000_000_000n : parseTime(flags.start, '--start'),
  });
  let output: AtomicFile | undefined;
  if (flags.output) {
    // Opened now, so that a path that cannot be written is a one-line error. The spans go to a
    // temporary file that takes the old one's place at the end (src/fs/atomic-write.ts): a run that
    // fails, is interrupted or is killed leaves the old file as it was, never half a new one.
    try {
      assertRewritable(flags.output, { followSymlinks: true });
      output = openAtomic(flags.output, { followSymlinks: true });
    } catch (error) {
      throw writeError(flags.output, error);
    }
  }
  // Ctrl-C while writing a file: the temporary file goes, the old file stays, exit 130.
  const interrupt = output ? ctx.interruptible() : undefined;
  const write = async (chunk: string | Uint8Array) => {
    if (interrupt?.signal.aborted) throw new InterruptedError();
    if (output) {
      const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      for (let at = 0; at < bytes.length; )
        at += (await writeAsync(output.fd, bytes, at, bytes.length - at)).bytesWritten;
    } else if (typeof chunk === 'string') io.write(chunk);
    else io.writeBytes(chunk);
  };
  try {
    if (format === 'protobuf') await write(toProtobuf(docs));
    else if (format === 'jsonl') for (const doc of docs) await write(`${JSON.stringify(doc)}\n`);
    else {
      // One document: the resourceSpans of every generated request, pretty-printed.
      const all = [...docs].flatMap((d) => d.resourceSpans as unknown[]);
      await write(`${JSON.stringify({ resourceSpans: all }, null, 2)}\n`);
    }
    output?.commit();
  } catch (error) {
    // A full disk, a quota: the temporary file goes (its space with it), the old file stays, exit 2
    // (nothing but this file was to be done: free the space and run it again).
    output?.abort();
    throw output ? writeError(flags.output!, error, { outcome: `${flags.output} is as it was` }) : error;
  } finally {
    interrupt?.release();
  }
  if (flags.output) io.info(`Wrote ${thousands(flags.spans)} spans to ${flags.output} (${format})`);
}
