import { seededRandom } from '../../src/lib/seeded-random.js';
// Shared helpers for the offline-validation tests: sources built from strings or chunks, a runner that
// checks trajectory groups the way the commands do, and a line finder used as an independent oracle
// for the line numbers the validator should report.

import { Readable } from 'node:stream';
import type { Source } from '../../src/fs/open-source.js';
import { type CheckedFile, checkDocuments } from '../../src/validate/check-file.js';
import { type DocumentEvent, readDocuments } from '../../src/validate/documents.js';
import { checkGroup, emptyGroupStats, type GroupStats } from '../../src/validate/trajectory.js';

export type Chunk = string | Buffer;

/** An async iterable that yields the chunks as given, one by one. */
export async function* fromChunks(chunks: Iterable<Chunk>): AsyncGenerator<Chunk> {
  for (const chunk of chunks) yield chunk;
}

export function source(name: string, input: string | Chunk[]): Source {
  return { name, stream: Readable.from(typeof input === 'string' ? [input] : input) };
}

/** Every event readDocuments yields for the chunks. */
export async function readAll(chunks: Iterable<Chunk>): Promise<DocumentEvent[]> {
  const events: DocumentEvent[] = [];
  for await (const event of readDocuments(fromChunks(chunks))) events.push(event);
  return events;
}

export interface GroupCheck {
  checked: CheckedFile;
  stats: GroupStats;
}

/** Checks a file of trajectory groups as checkTrajectoryFile does (without a Context). */
export async function checkGroups(
  name: string,
  input: string | Chunk[],
  options: { collect?: boolean } = { collect: true },
): Promise<GroupCheck> {
  const stats = emptyGroupStats();
  const checked = await checkDocuments(source(name, input), (value) => checkGroup(value, stats), options);
  return { checked, stats };
}

/** The text cut into pieces of the given size (the last may be shorter). */
export function splitEvery(text: string, size: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

/** A seeded PRNG (the emulator's), so that "random" chunkings are reproducible. */
export const prng = seededRandom;

/** The input cut at random places into pieces of 1..maxSize units (characters, or bytes for a Buffer). */
export function randomPieces<T extends string | Buffer>(input: T, seed: number, maxSize: number): T[] {
  const random = prng(seed);
  const out: T[] = [];
  for (let i = 0; i < input.length; ) {
    const size = 1 + Math.floor(random() * maxSize);
    out.push(input.slice(i, i + size) as T);
    i += size;
  }
  return out;
}

/** Each byte of a Buffer as its own chunk (splitting multi-byte UTF-8 characters). */
export function byteChunks(buffer: Buffer): Buffer[] {
  return [...buffer].map((byte) => Buffer.from([byte]));
}

/**
 * The 1-based line of the one occurrence of `needle` in `text`, plus `offset` lines. Throws when the
 * needle is absent or occurs more than once, so that a test cannot silently point at the wrong place.
 */
export function lineOf(text: string, needle: string, offset = 0): number {
  const at = text.indexOf(needle);
  if (at === -1) throw new Error(`lineOf: ${JSON.stringify(needle)} is not in the text`);
  if (text.indexOf(needle, at + 1) !== -1) throw new Error(`lineOf: ${JSON.stringify(needle)} occurs twice`);
  return text.slice(0, at).split('\n').length + offset;
}
