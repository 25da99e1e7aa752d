// A worker thread of `aip traces send` (parallel.ts): takes pieces of a JSON Lines input (whole
// lines, with the number of the first), reads them into gzipped batches (pieces-reader.ts) and hands
// those back. Reading and encoding are most of the work of a send; spread over the cores, they keep
// up with the network.

import { parentPort } from 'node:worker_threads';
import { type PiecesBatch, PiecesReader, type PiecesSettings } from './pieces-reader.js';
import type { Problems } from './problems.js';

export type ToWorker =
  | ({ type: 'start' } & PiecesSettings)
  | { type: 'piece'; bytes: Uint8Array; firstLine: number }
  | { type: 'finish' };

export type FromWorker =
  | { type: 'progress'; batches: PiecesBatch[]; spans: number; documents: number }
  | {
      type: 'done';
      batches: PiecesBatch[];
      spans: number;
      documents: number;
      problems: Problems['list'];
      problemCount: number;
    };

const port = parentPort;
if (port) {
  let reader: PiecesReader | undefined;
  port.on('message', (message: ToWorker) => {
    if (message.type === 'start') {
      reader = new PiecesReader(message);
      return;
    }
    if (message.type === 'piece') {
      const { bytes } = message;
      reader!.piece(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), message.firstLine);
      port.postMessage({ type: 'progress', ...reader!.take() } satisfies FromWorker);
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
