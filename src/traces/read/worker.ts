// A worker thread of `aip traces send` (parallel.ts): takes pieces of a JSON Lines input (whole
// lines, with the number of the first), reads them into gzipped batches (pieces-reader.ts) and hands
// those back. Reading and encoding are most of the work of a send; spread over the cores, they keep
// up with the network.

import { parentPort } from 'node:worker_threads';
import { type PiecesBatch, PiecesReader, type PiecesSettings } from './pieces-reader.js';
import type { Problems } from './problems.js';

export type ToWorker =
  | ({ type: 'start' } & PiecesSettings)
  /** The piece is the first `length` bytes of `buffer`, which goes back with the progress that follows. */
  | { type: 'piece'; buffer: ArrayBuffer; length: number; firstLine: number }
  | { type: 'finish' };

export type FromWorker =
  | {
      type: 'progress';
      batches: PiecesBatch[];
      spans: number;
      documents: number;
      problemsSoFar: number;
      buffer: ArrayBuffer;
    }
  | {
      type: 'done';
      batches: PiecesBatch[];
      spans: number;
      documents: number;
      problemsSoFar: number;
      problems: Problems['list'];
      problemCount: number;
    };

/** Whether an ArrayBuffer is all of one batch's bytes (a small one shares Node's pool with others). */
function ownedBy(batches: PiecesBatch[]): (memory: ArrayBuffer, index: number) => boolean {
  return (memory, index) => {
    const bytes = batches[index]!.bytes;
    return bytes.byteOffset === 0 && bytes.byteLength === memory.byteLength;
  };
}

const port = parentPort;
if (port) {
  let reader: PiecesReader | undefined;
  port.on('message', (message: ToWorker) => {
    if (message.type === 'start') {
      reader = new PiecesReader(message);
      return;
    }
    if (message.type === 'piece') {
      const { buffer } = message;
      reader!.piece(Buffer.from(buffer, 0, message.length), message.firstLine);
      // Nothing holds the piece's bytes once it is read: its memory goes back, to be filled again.
      // The batches move too, rather than being copied, where each is the whole of its memory.
      const read = reader!.take();
      const moved = read.batches.map((b) => b.bytes.buffer as ArrayBuffer).filter(ownedBy(read.batches));
      port.postMessage({ type: 'progress', ...read, buffer } satisfies FromWorker, [buffer, ...moved]);
      return;
    }
    reader!.finish();
    const { problems } = reader!;
    port.postMessage({
      type: 'done',
      ...reader!.take(),
      problems: problems.list,
      problemCount: problems.count,
    } satisfies FromWorker);
  });
}
