// How a journal file frames the OTLP requests it holds: each record is a 12-byte header — the magic
// "AIPT", the payload's length and its CRC-32, big-endian — then the payload (one plain protobuf
// ExportTraceServiceRequest). A record of length 0 is the end mark a writer leaves when it closes or
// rotates its file: the file is finished and a fold may remove it.
//
// Why a CRC and a magic: a writer killed in the middle of a write leaves part of a record at the end of
// its file (a torn tail), and a failed write can leave part of one before a later record. A reader
// never takes a part for a whole: a record is read only when its header and all its payload are there
// and the CRC matches; anything else that has a whole, valid record after it is skipped up to that
// record's magic (resynchronised), and anything at the end is left to be completed or, once its writer
// is gone, dropped.

import { crc32 } from 'node:zlib';

export const MAGIC = 0x41495054; // "AIPT"
export const HEADER_BYTES = 12;
/** A record claiming more than this is no record of ours (a gateway request is far smaller). */
export const MAX_RECORD_BYTES = 256 * 1024 * 1024;

/** One record, header and payload, to be appended with a single write. */
export function frameRecord(payload: Uint8Array): Buffer {
  const record = Buffer.allocUnsafe(HEADER_BYTES + payload.length);
  record.writeUInt32BE(MAGIC, 0);
  record.writeUInt32BE(payload.length, 4);
  record.writeUInt32BE(payload.length === 0 ? 0 : crc32(payload), 8);
  record.set(payload, HEADER_BYTES);
  return record;
}

/** The end mark: a record of length 0. */
export const END_RECORD = frameRecord(new Uint8Array(0));

export type Frame =
  /** A whole, valid record at `at`; `end` is where the next begins. */
  | { kind: 'record'; payload: Buffer; end: number }
  /** The end mark. */
  | { kind: 'end'; end: number }
  /** Nothing whole here nor after it in the buffer: wait for more (or, the writer gone, drop it). */
  | { kind: 'partial' }
  /** Not a whole record, but one begins at `next`: skip to it. */
  | { kind: 'skip'; next: number };

/** Whether a whole, valid record (or end mark) starts at `at`; its end when so. */
function wholeAt(buffer: Buffer, at: number): number | undefined {
  if (at + HEADER_BYTES > buffer.length || buffer.readUInt32BE(at) !== MAGIC) return undefined;
  const length = buffer.readUInt32BE(at + 4);
  if (length > MAX_RECORD_BYTES || at + HEADER_BYTES + length > buffer.length) return undefined;
  const payload = buffer.subarray(at + HEADER_BYTES, at + HEADER_BYTES + length);
  const sum = length === 0 ? 0 : crc32(payload);
  return sum === buffer.readUInt32BE(at + 8) ? at + HEADER_BYTES + length : undefined;
}

/** The next whole record after `at`, if the buffer holds one (the magic's bytes, then a check). */
function nextWhole(buffer: Buffer, from: number): number | undefined {
  const magic = Buffer.from('AIPT', 'latin1');
  for (let at = buffer.indexOf(magic, from); at >= 0; at = buffer.indexOf(magic, at + 1))
    if (wholeAt(buffer, at) !== undefined) return at;
  return undefined;
}

/** What starts at `at` in the buffer (a window of the file, beginning at a record's boundary). */
export function frameAt(buffer: Buffer, at: number): Frame {
  const end = wholeAt(buffer, at);
  if (end !== undefined) {
    const length = end - at - HEADER_BYTES;
    return length === 0
      ? { kind: 'end', end }
      : { kind: 'record', payload: buffer.subarray(at + HEADER_BYTES, end), end };
  }
  // A record that begins here but runs past the buffer (or whose header is not all there) is one to
  // read further, not to skip: looking inside it for a magic would take its payload's bytes for
  // records (a span's attribute can hold "AIPT" and a fake end mark). Only a record whole in the buffer
  // that fails its CRC, or bytes that are no header, are skipped.
  if (at + HEADER_BYTES > buffer.length) return { kind: 'partial' };
  const claimed = claimedLength(buffer, at);
  if (claimed !== undefined && at + claimed > buffer.length) return { kind: 'partial' };
  const next = nextWhole(buffer, at + 1);
  return next === undefined ? { kind: 'partial' } : { kind: 'skip', next };
}

/**
 * How many bytes the record at `at` needs in all, when its header says so and is believable: a
 * reader whose window is too small reads that much.
 */
export function claimedLength(buffer: Buffer, at: number): number | undefined {
  if (at + HEADER_BYTES > buffer.length || buffer.readUInt32BE(at) !== MAGIC) return undefined;
  const length = buffer.readUInt32BE(at + 4);
  return length > MAX_RECORD_BYTES ? undefined : HEADER_BYTES + length;
}
